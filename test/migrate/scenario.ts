import { createHash } from "node:crypto";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inject, vi, type TestContext } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { Database } from "../../src/manifest/schema.ts";
import { scratchDir } from "../helpers/generate.ts";
import { client } from "../helpers/http.ts";
import { liveDatabase, liveDatabaseAt, type LiveDatabase } from "../helpers/live-db.ts";
import { oncePerRun } from "../helpers/once.ts";
import { createDatabase } from "../helpers/pg-database.ts";
import { startServer } from "../helpers/server.ts";

// What the tests of `tablegen migrate` on a live database share: a shop's manifest in two versions,
// a project directory with a fresh database of either kind, and its server over HTTP.

const KEY = "scenario-key";
export const postgresUrl = inject("postgresUrl");
/** What a `tablegen` command answered: its exit code, and what it printed on each stream. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

let running: Promise<unknown> = Promise.resolve();

/**
 * `tablegen <args>` in `cwd`, run by the CLI's own entry (`main`, what bin/tablegen.js runs) in this
 * process rather than a process of its own: the same code, without a node start and its modules
 * loaded again for each of the scenarios' hundred-odd commands (test/cli/cli.test.ts and
 * test/generate.test.ts run the binary itself). One command at a time in a process, in its
 * directory, with its environment (by default DATABASE_URL unset, as a user's shell has it: the
 * project's .env gives it) and what it prints on the console taken as its output.
 */
export function tablegen(
  args: string[],
  cwd: string,
  env: Record<string, string> = { DATABASE_URL: "" },
): Promise<CommandResult> {
  const command = running.then(async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const text = (parts: unknown[]) => parts.map(String).join(" ");
    const log = vi.spyOn(console, "log").mockImplementation((...parts) => void stdout.push(text(parts)));
    const error = vi.spyOn(console, "error").mockImplementation((...parts) => void stderr.push(text(parts)));
    const directory = process.cwd();
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    process.chdir(cwd);
    Object.assign(process.env, env);
    try {
      const exitCode = await main(["node", "tablegen", ...args]);
      return { exitCode, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
    } finally {
      process.chdir(directory);
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      log.mockRestore();
      error.mockRestore();
    }
  });
  running = command.catch(() => undefined);
  return command;
}

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
