import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { UserError } from "../errors.ts";
import type { Database } from "../manifest/schema.ts";

const require = createRequire(import.meta.url);
const PRISMA_CLI = require.resolve("prisma/build/index.js");
const DIFF_CONFIG = fileURLToPath(new URL("./diff.config.ts", import.meta.url));

/** Runs the Prisma CLI that tablegen depends on; a failure becomes a UserError with Prisma's words. */
export async function runPrisma(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<string> {
  const result = await execa(process.execPath, [PRISMA_CLI, ...args], {
    cwd: options.cwd,
    env: { PRISMA_HIDE_UPDATE_MESSAGE: "1", ...options.env },
    reject: false,
  });
  if (result.exitCode !== 0) {
    const output = `${result.stderr}\n${result.stdout}`.trim();
    throw new UserError(`prisma ${args[0]} ${args[1] ?? ""} failed:\n${output}`);
  }
  return result.stdout;
}

/**
 * A URL of the schema's provider. Prisma reads `env("DATABASE_URL")` even for a diff between two
 * schema files, and without it falls back to a native engine that it tries to download.
 */
const PLACEHOLDER_URLS: Record<Database, string> = {
  sqlite: "file:./tablegen-diff.db",
  postgresql: "postgresql://tablegen@localhost:5432/tablegen",
};

/** The SQL that takes a database from one Prisma schema file (or nothing) to another. */
export async function diffSchemas(from: string | undefined, to: string, database: Database, cwd: string): Promise<string> {
  const source = from === undefined ? ["--from-empty"] : ["--from-schema-datamodel", from];
  return runPrisma(["migrate", "diff", ...source, "--to-schema-datamodel", to, "--script", "--config", DIFF_CONFIG], {
    cwd,
    env: { DATABASE_URL: PLACEHOLDER_URLS[database] },
  });
}
