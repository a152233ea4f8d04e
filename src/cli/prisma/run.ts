import { createRequire } from "node:module";
import { resolve } from "node:path";
import { UserError } from "../../errors.ts";
import type { Target } from "../../targets/index.ts";
import { packagePath } from "../paths.ts";

const require = createRequire(import.meta.url);
const PRISMA_CLI = require.resolve("prisma/build/index.js");

/** Runs the Prisma CLI that tablegen depends on; a failure becomes a UserError with Prisma's words. */
async function runPrisma(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<string> {
  // Loaded when a Prisma process is needed: most generations start none (execa takes ~100 ms to load).
  const { execa } = await import("execa");
  const result = await execa(process.execPath, [PRISMA_CLI, ...args], {
    cwd: options.cwd,
    // No update check: it is a network request, and tablegen pins its Prisma.
    env: { PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1", ...options.env },
    reject: false,
  });
  if (result.exitCode !== 0) {
    throw new UserError(
      `prisma ${args.slice(0, 2).join(" ")} failed: ${prismaError(`${result.stderr}\n${result.stdout}`)}`,
    );
  }
  return result.stdout;
}

/** The error Prisma reports, without its banners and warnings. */
function prismaError(output: string): string {
  // SQLITE_BUSY, which the adapter names in a way the engine does not know.
  if (output.includes("unknown variant `SocketTimeout`"))
    return "the database is locked by another process: a write held it for over 10 seconds";
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.startsWith("Error"));
  if (start === -1) return output.trim();
  const error = lines
    .slice(start)
    .join("\n")
    .split(/\n\s*\n\s*\n|\nPrisma schema loaded/)[0]!;
  return readable(
    error
      .replace(/^Error: (P\d+)\s*\n+/, "$1: ")
      .replace(/^Error: /, "")
      .trim(),
  );
}

/** Prisma's error without the schema engine's backtrace (`   0: sql_schema_connector::…`, with its `with …` and `at …` lines). */
function readable(error: string): string {
  return error
    .split("\n")
    .filter((line) => !/^\s+(\d+: \S|with |at )/.test(line))
    .join("\n")
    .trim();
}

const DEPLOY_CONFIG = packagePath("src", "cli", "prisma", "deploy.config.ts");

/**
 * Applies a server's pending migrations to a database, with tablegen's own Prisma and the adapter
 * the target's servers migrate with (its `src/prisma-adapter.ts`, a module of src/runtime/).
 */
export async function deployMigrations(outDir: string, databaseUrl: string, target: Target): Promise<string> {
  const adapter = target.runtimeFiles["src/prisma-adapter.ts"];
  if (adapter === undefined) throw new Error(`the ${target.label} target names no Prisma adapter`);
  return runPrisma(["migrate", "deploy", "--config", DEPLOY_CONFIG], {
    cwd: outDir,
    env: {
      DATABASE_URL: databaseUrl,
      TABLEGEN_ADAPTER: packagePath("src", "runtime", adapter),
      TABLEGEN_SCHEMA: resolve(outDir, "prisma", "schema.prisma"),
      TABLEGEN_MIGRATIONS: resolve(outDir, "prisma", "migrations"),
    },
  });
}
