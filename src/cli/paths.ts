import { existsSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * tablegen's own directory: two levels above this module as TypeScript (src/cli/paths.ts), one
 * level above it bundled into the compiled CLI (dist/*.js).
 */
const PACKAGE_ROOT = [new URL("../../", import.meta.url), new URL("../", import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, "package.json")) && existsSync(join(dir, "templates")))!;

/** A file of tablegen's own package (templates, runtime sources, configurations, package.json). */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}

/** A path as the user will recognise it: relative to the working directory when inside it. */
export function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown === "" || shown.startsWith("..") || isAbsolute(shown) ? path : shown;
}
