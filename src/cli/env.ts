import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseEnv } from "node:util";

/** DATABASE_URL from the environment, or from the `.env` beside the manifest (CONTRACT.md §1). */
export function databaseUrlFor(manifest: string): string | undefined {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const envFile = join(dirname(manifest), ".env");
  if (!existsSync(envFile)) return undefined;
  return parseEnv(readFileSync(envFile, "utf8")).DATABASE_URL || undefined;
}
