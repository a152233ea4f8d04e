import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseEnv } from "node:util";

/** A variable from the environment, or from the `.env` beside the manifest (CONTRACT.md §1). */
function variableFor(manifest: string, name: string): { value: string; from: string } | undefined {
  if (process.env[name]) return { value: process.env[name], from: "the environment" };
  const envFile = join(dirname(manifest), ".env");
  if (!existsSync(envFile)) return undefined;
  const value = parseEnv(readFileSync(envFile, "utf8"))[name];
  return value ? { value, from: envFile } : undefined;
}

/**
 * The database migrations go to: DIRECT_DATABASE_URL when it is set (the database's own address,
 * where the server's DATABASE_URL leads through a connection pooler), else DATABASE_URL; with the
 * variable it came from and where that was set, to name it in a message.
 */
export function migrationUrlFor(manifest: string): { url: string; variable: string; from: string } | undefined {
  for (const variable of ["DIRECT_DATABASE_URL", "DATABASE_URL"]) {
    const found = variableFor(manifest, variable);
    if (found) return { url: found.value, variable, from: found.from };
  }
  return undefined;
}
