import { createHash } from "node:crypto";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inject, type TestContext } from "vitest";
import type { Database } from "../../src/manifest/schema.ts";
import { scratchDir } from "../helpers/generate.ts";
import { tablegen } from "../helpers/command.ts";
import { client } from "../helpers/http.ts";
import { liveDatabase, liveDatabaseAt, type LiveDatabase } from "../helpers/live-db.ts";
import { oncePerRun } from "../helpers/once.ts";
import { createDatabase } from "../helpers/pg-database.ts";
import { startServer } from "../helpers/server.ts";

// What the tests of `tablegen migrate` on a live database share: a shop's manifest in two versions,
// a project directory with a fresh database of either kind, and its server over HTTP.

const KEY = "scenario-key";
export const postgresUrl = inject("postgresUrl");
export { tablegen, type CommandResult } from "../helpers/command.ts";

export const FIRST = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
      phone: PHONE
      notes: { type: TEXT, maxLength: 20 }
  orders:
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, onDelete: cascade }
      total: NUMBER
`;

export const SECOND = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
      mobile: { type: PHONE, renamedFrom: phone }
      notes: { type: TEXT, maxLength: 200 }
      email: { type: EMAIL, unique: true }
      tier: { type: TEXT, required: true, default: basic }
  purchases:
    renamedFrom: orders
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, onDelete: cascade }
      total: NUMBER
  invoices:
    fields:
      purchase_id: { type: NUMBER, required: true, references: purchases }
      paid: { type: BOOLEAN, default: false }
`;

export type Envelope<T = Record<string, unknown>> = { success: boolean; message: string; data: T };

/** A project directory with a manifest for the database and a `.env` naming a fresh database. */
export async function project(
  database: Database,
  manifest: string,
): Promise<{ dir: string; db: LiveDatabase; write: (text: string) => Promise<void> }> {
  const dir = await scratchDir(`migrate-${database}`);
  await mkdir(join(dir, "server"));
  const db = await liveDatabase(database, join(dir, "server"), postgresUrl);
  await writeFile(join(dir, ".env"), `DATABASE_URL="${db.url}"\n`);
  const write = manifestWriter(dir, database);
  await write(manifest);
  return { dir, db, write };
}

/** Writes the project's manifest, on its database. */
const manifestWriter = (dir: string, database: Database) => (text: string) =>
  writeFile(join(dir, "tablegen.yaml"), text.replace("tables:\n", `database: ${database}\ntables:\n`));

/**
 * A project as `project` makes it, after `tablegen generate` and `tablegen migrate`: its server,
 * first migration and database. Made once per run for a database and manifest (the first test to
 * ask runs both commands, which the tests of a fresh project check on their own), then copied for
 * each test: the project's directory, and its database (SQLite: the file in it; PostgreSQL: a new
 * database made from the migrated one as a template).
 */
export async function migratedProject(
  database: Database,
  manifest: string,
): Promise<{ dir: string; db: LiveDatabase; write: (text: string) => Promise<void> }> {
  const key = `migrated-${database}-${createHash("sha256").update(manifest).digest("hex").slice(0, 12)}`;
  const prepared = await oncePerRun(key, async () => {
    const { dir, db } = await project(database, manifest);
    for (const command of ["generate", "migrate"]) {
      const result = await tablegen([command], dir);
      if (result.exitCode !== 0) throw new Error(`tablegen ${command}: ${result.stderr}`);
    }
    return { dir, url: db.url };
  });
  const dir = await scratchDir(`migrate-${database}`);
  await cp(prepared.dir, dir, { recursive: true });
  const db =
    database === "sqlite"
      ? liveDatabaseAt(database, prepared.url, join(dir, "server", prepared.url.slice("file:./".length)))
      : liveDatabaseAt(database, await createDatabase(postgresUrl, "live", new URL(prepared.url).pathname.slice(1)));
  if (database === "postgresql") await writeFile(join(dir, ".env"), `DATABASE_URL="${db.url}"\n`);
  return { dir, db, write: manifestWriter(dir, database) };
}

/** Starts the project's server, stopped by `stop` or at the latest when the test ends. */
export async function serve(dir: string, db: LiveDatabase, { onTestFinished }: TestContext) {
  const server = await startServer(join(dir, "server"), { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
  onTestFinished(() => server.stop());
  return { api: client(`${server.url}/shop`, KEY), stop: server.stop };
}
