import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { inject, type TestContext } from "vitest";
import type { Database } from "../../src/manifest/schema.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { client } from "../helpers/http.ts";
import { liveDatabase, type LiveDatabase } from "../helpers/live-db.ts";
import { startServer } from "../helpers/server.ts";

// What the tests of `tablegen migrate` on a live database share: a shop's manifest in two versions,
// a project directory with a fresh database of either kind, and its server over HTTP.

const KEY = "scenario-key";
export const postgresUrl = inject("postgresUrl");
export const tablegen = (args: string[], cwd: string) =>
  execa(process.execPath, [join(REPO, "bin/tablegen.js"), ...args], { cwd, reject: false, env: { DATABASE_URL: "" } });

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
  const write = (text: string) =>
    writeFile(join(dir, "tablegen.yaml"), text.replace("tables:\n", `database: ${database}\ntables:\n`));
  await write(manifest);
  return { dir, db, write };
}

/** Starts the project's server, stopped by `stop` or at the latest when the test ends. */
export async function serve(dir: string, db: LiveDatabase, { onTestFinished }: TestContext) {
  const server = await startServer(join(dir, "server"), { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
  onTestFinished(() => server.stop());
  return { api: client(`${server.url}/shop`, KEY), stop: server.stop };
}
