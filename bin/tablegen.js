#!/usr/bin/env node
// Runs the compiled CLI (dist/, from `npm run build`, which `npm install` and `npm pack` run). In a
// clone (it has tsconfig.json, which the package leaves out), only while dist/ is newer than every
// source file: while src/ is being edited, it runs the TypeScript sources through tsx instead. An
// installed package always runs dist/ (npm gives its files the time they were unpacked).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const sources = fileURLToPath(new URL("../src/", import.meta.url));
const clone = existsSync(fileURLToPath(new URL("../tsconfig.json", import.meta.url)));

function compiledIsCurrent() {
  if (!existsSync(compiled)) return false;
  if (!clone) return true;
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
