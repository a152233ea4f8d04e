import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "../targets/index.ts";

/** Where a server's typed Prisma Client is generated (prisma/schema.prisma's generator output). */
export const CLIENT_DIR = "src/generated/prisma";

export type ClientRefresh =
  | { status: "refreshed" }
  /** The server has no Prisma of its own installed yet: `npm install` generates the client. */
  | { status: "not installed" }
  | { status: "up to date" }
  | { status: "failed"; reason: string };

/**
 * Regenerates a server's typed Prisma Client (`src/generated/prisma`, what `src/prisma.ts` and
 * hand-written code import) with the Prisma the server installed, as `prisma migrate dev` does
 * for a Prisma user: after generation changed the schema, or when the client is missing. A server
 * without its own `node_modules/prisma` is left alone: its `npm install` generates the client.
 * Prisma runs offline (its JavaScript engine); it opens no database.
 */
export async function refreshPrismaClient(
  outDir: string,
  target: Target,
  schemaChanged: boolean,
): Promise<ClientRefresh> {
  const prisma = join(outDir, "node_modules", "prisma", "build", "index.js");
  if (!existsSync(prisma)) return { status: "not installed" };
  if (!schemaChanged && existsSync(join(outDir, CLIENT_DIR))) return { status: "up to date" };
  const { execa } = await import("execa");
  const result = await execa(process.execPath, [prisma, "generate"], {
    cwd: outDir,
    // Any URL of the provider will do: generating opens no database, but the server's
    // prisma.config.ts requires one (PostgreSQL has no default).
    env: { DATABASE_URL: target.placeholderUrl, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    reject: false,
    all: true,
  });
  if (result.exitCode === 0) return { status: "refreshed" };
  const output = String(result.all ?? "").trim();
  const error = output.split("\n").find((line) => /error/i.test(line)) ?? output.split("\n").at(-1) ?? "";
  return { status: "failed", reason: error.trim() || `prisma generate exited with ${result.exitCode}` };
}
