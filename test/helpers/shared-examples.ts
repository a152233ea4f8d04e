import { readFileSync, watch } from "node:fs";
import { copyFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { execa } from "execa";
import { inject } from "vitest";
import { parse } from "yaml";
import type { Database } from "../../src/manifest/schema.ts";
import { EXAMPLES, REPO, generateExample, scratchDir } from "./generate.ts";
import { liveDatabaseAt, type LiveDatabase } from "./live-db.ts";
import { createDatabase } from "./pg-database.ts";
import { RUN_ROOT_VARIABLE } from "./run-root.ts";
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
    example = onceAcrossWorkers(key, () => prepare(name, key === name ? undefined : database));
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

/**
 * Runs `work` once per test run for `key`: the first caller, in any worker process, takes a lock
 * (an exclusive mkdir) and writes the outcome to a file; the others wait for that file to appear
 * (an event of its folder, not a clock: on a loaded machine they wait longer).
 */
async function onceAcrossWorkers(key: string, work: () => Promise<Prepared>): Promise<Prepared> {
  const root = process.env[RUN_ROOT_VARIABLE];
  if (!root) throw new Error(`${RUN_ROOT_VARIABLE} is not set: run the tests through vitest (test/setup/run-root.ts)`);
  const slots = join(root, "shared");
  await mkdir(slots, { recursive: true });
  const outcome = join(slots, `${key}.json`);
  let owner = true;
  await mkdir(join(slots, `${key}.lock`)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
    owner = false;
  });
  if (owner) {
    let result: { example: Prepared } | { error: string };
    try {
      result = { example: await work() };
    } catch (error) {
      result = { error: (error as Error).stack ?? String(error) };
    }
    await writeFile(`${outcome}.tmp`, JSON.stringify(result));
    await rename(`${outcome}.tmp`, outcome);
    if ("error" in result) throw new Error(`preparing the shared ${key} example failed:\n${result.error}`);
    return result.example;
  }
  const result = JSON.parse(await appeared(outcome)) as { example: Prepared } | { error: string };
  if ("error" in result) throw new Error(`preparing the shared ${key} example failed:\n${result.error}`);
  return result.example;
}

/** A file's text once it exists: at once, or when its folder says it was made (renamed into place). */
function appeared(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Watched before the first look, so that a file made in between is not missed.
    const watcher = watch(dirname(file));
    const look = () =>
      readFile(file, "utf8").then(
        (text) => {
          watcher.close();
          resolve(text);
        },
        () => undefined,
      );
    watcher.on("change", (_event, name) => {
      if (name === basename(file)) void look();
    });
    watcher.on("error", (error) => {
      watcher.close();
      reject(error);
    });
    void look();
  });
}
