import { readFileSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { inject } from "vitest";
import { parse } from "yaml";
import type { Database } from "../../src/manifest/schema.ts";
import { EXAMPLES, REPO, generateExample, scratchDir } from "./generate.ts";
import { liveDatabaseAt, type LiveDatabase } from "./live-db.ts";
import { createDatabase } from "./pg-database.ts";
import { oncePerRun } from "./once.ts";
import { migrate, transpile } from "./server.ts";

// The examples' generated servers, each prepared once per test run and shared by every test file
// that only reads it: generated (generateExample), its Prisma Client generated as `npm install`
// does, transpiled as `npm start` does, and one database migrated by `npm run migrate`, which each
// test copies to get a database of its own (exampleDatabase). A shared server is never written to
// again: start it with startTranspiled, and keep databases, certificates and the like elsewhere.
//
// The first test file that needs an example prepares it, under a lock in the run root; the files
// that need it meanwhile wait for it, whichever worker process they run in.

const PRISMA = join(REPO, "node_modules", "prisma", "build", "index.js");

interface Prepared {
  dir: string;
  database: Database;
  /** The migrated database to copy: a SQLite file, or a PostgreSQL database's name; none without PostgreSQL. */
  template?: string;
}

const prepared = new Map<string, Promise<Prepared>>();

/** The shared, transpiled server of an example (on another database if asked), with its Prisma Client. */
export async function sharedExample(name: string, database?: Database): Promise<{ dir: string; database: Database }> {
  const example = await preparedExample(name, database);
  return { dir: example.dir, database: example.database };
}

/**
 * A database of the test's own for a shared example, migrated: a copy of the example's migrated
 * database (a SQLite file in a scratch directory, reached by an absolute file: URL, or a PostgreSQL
 * database made from it as a template).
 */
export async function exampleDatabase(name: string, database?: Database): Promise<LiveDatabase> {
  const example = await preparedExample(name, database);
  if (example.template === undefined) throw new Error(`the ${name} example has no database: PostgreSQL is missing`);
  if (example.database === "sqlite") {
    const file = join(await scratchDir(`${name}-db`), `${name}.db`);
    await copyFile(example.template, file);
    return liveDatabaseAt("sqlite", `file:${file}`);
  }
  return liveDatabaseAt("postgresql", await createDatabase(inject("postgresUrl"), name, example.template));
}

function preparedExample(name: string, database?: Database): Promise<Prepared> {
  const key = database && database !== ownDatabase(name) ? `${name}-${database}` : name;
  let example = prepared.get(key);
  if (!example) {
    example = oncePerRun(`example-${key}`, () => prepare(name, key === name ? undefined : database));
    prepared.set(key, example);
  }
  return example;
}

/** The database an example's manifest names, if it names one. */
function ownDatabase(name: string): unknown {
  return (parse(readFileSync(join(EXAMPLES, `${name}.yaml`), "utf8")) as { database?: unknown }).database;
}

async function prepare(name: string, database: Database | undefined): Promise<Prepared> {
  const { dir, model } = await generateExample(name, database);
  const postgresUrl = inject("postgresUrl");
  // Prisma needs a URL of the schema's provider, even to generate the client.
  const placeholder = model.database === "sqlite" ? "file:./data.db" : "postgresql://localhost:5432/unused";
  await execa(process.execPath, [PRISMA, "generate"], { cwd: dir, env: { DATABASE_URL: placeholder } });
  await transpile(dir);
  if (model.database === "sqlite") {
    const template = join(dir, "template.db");
    await migrate(dir, { DATABASE_URL: `file:${template}` });
    return { dir, database: model.database, template };
  }
  if (!postgresUrl) return { dir, database: model.database };
  const url = await createDatabase(postgresUrl, `template_${name}`);
  await migrate(dir, { DATABASE_URL: url });
  return { dir, database: model.database, template: new URL(url).pathname.slice(1) };
}
