import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Loads `.env` from the server's directory or, failing that, from the project directory above
 * it (where `tablegen init` writes it). Variables already set in the environment win.
 */
export function loadEnvFile(): void {
  for (const candidate of ["../.env", "../../.env"]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) {
      process.loadEnvFile(path);
      return;
    }
  }
}
