#!/usr/bin/env node
// Runs the compiled CLI (dist/, from `npm run build`, which `npm install` runs) when it is newer
// than every source file; while src/ is being edited, the TypeScript sources through tsx instead.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const sources = fileURLToPath(new URL("../src/", import.meta.url));

function compiledIsCurrent() {
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  return readdirSync(sources, { recursive: true }).every((file) => statSync(join(sources, file)).mtimeMs <= built);
}

let main;
if (compiledIsCurrent()) {
  if (process.argv.includes("--debug")) process.setSourceMapsEnabled(true);
  ({ main } = await import("../dist/main.js"));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/cli/main.ts"));
}
process.exitCode = await main(process.argv);
