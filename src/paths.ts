import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * tablegen's own directory. This module sits one level below it both as TypeScript (src/paths.ts)
 * and bundled into the compiled CLI (dist/*.js), so the same relative URL finds it.
 */
const PACKAGE_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** A file of tablegen's own package (templates, configurations, package.json). */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}
