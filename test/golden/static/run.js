// @ts-check
// `npm start`, `npm run cluster` and `npm run migrate` run the server's TypeScript without a build
// step, through this file: `node run.js <entry>` brings dist/ up to date with src/, then runs
// dist/<entry>.js in the same process; `node run.js` alone (`npm run transpile`) only does the first.
//
// Up to date: esbuild strips the types of the .ts files of src/ that changed since the last run
// (your edits of src/custom/ among them) into dist/, with source maps, and what dist/ has of
// deleted sources is removed. When nothing changed, nothing is transpiled (a few milliseconds).
// Stack traces name the .ts files, lines and columns: the source maps are read when a stack trace
// is first printed, not at start-up as Node's --enable-source-maps reads every one.
import cluster from "node:cluster";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SRC = fileURLToPath(new URL("src", import.meta.url));
const DIST = fileURLToPath(new URL("dist", import.meta.url));
/**
 * esbuild's options: what `esbuild "src/**\/*.ts" --outdir=dist` with the same flags does.
 * @type {import("esbuild").BuildOptions}
 */
const OPTIONS = { platform: "node", target: "node20", format: "esm", sourcemap: true, logLevel: "warning" };
/** What dist/ was transpiled with and from: per source, its size and time, and its output's time. */
const STAMP = join(DIST, ".transpiled.json");
const DIST_URL = pathToFileURL(DIST).href + "/";
/** Each dist/ file's source map (null if it has none), read the first time a stack trace needs it. */
const sourceMaps = new Map();

const entry = process.argv[2];
// A cluster's workers run this file too: their primary has transpiled already.
if (cluster.isPrimary && !(await transpile())) {
  process.exitCode = 1;
} else if (entry !== undefined) {
  const file = join(DIST, `${entry}.js`);
  if (!existsFile(file)) {
    console.error(`Cannot run "${entry}": src/${entry}.ts does not exist`);
    process.exitCode = 1;
  } else {
    Error.prepareStackTrace = mappedStackTrace;
    await import(pathToFileURL(file).href);
  }
}

/** Brings dist/ up to date with src/; false if esbuild failed (it has printed why). */
async function transpile() {
  const sources = filesUnder(SRC).filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
  const output = (/** @type {string} */ source) => join(DIST, source.replace(/\.ts$/, ".js"));
  const stampOf = (/** @type {string} */ source) => {
    const { size, mtimeMs } = statSync(join(SRC, source));
    return [size, mtimeMs, modifiedAt(output(source))].join(" ");
  };
  const before = readStamp();
  const changed = sources.filter((source) => before.files[source] !== stampOf(source));
  if (changed.length === 0 && Object.keys(before.files).length === sources.length) return true;

  // What dist/ has of sources that are gone would still be found (a deleted src/custom/ file).
  const outputs = new Set(sources.flatMap((source) => [output(source), `${output(source)}.map`]));
  for (const path of filesUnder(DIST)) {
    if (/\.js(\.map)?$/.test(path) && !outputs.has(join(DIST, path))) rmSync(join(DIST, path));
  }
  if (changed.length > 0) {
    const esbuild = await import("esbuild");
    try {
      esbuild.buildSync({
        ...OPTIONS,
        entryPoints: changed.map((source) => join(SRC, source)),
        outbase: SRC,
        outdir: DIST,
      });
    } catch {
      return false;
    }
  }
  const files = Object.fromEntries(sources.map((source) => [source, stampOf(source)]));
  mkdirSync(DIST, { recursive: true });
  writeFileSync(STAMP, JSON.stringify({ options: OPTIONS, files }, null, 2) + "\n");
  return true;
}

/** The stamp of the last transpile, or an empty one if there is none or its options differ. */
function readStamp() {
  /** @type {{ options?: unknown, files: Record<string, string> }} */
  const none = { files: {} };
  try {
    const stamp = JSON.parse(readFileSync(STAMP, "utf8"));
    return JSON.stringify(stamp.options) === JSON.stringify(OPTIONS) ? stamp : none;
  } catch {
    return none;
  }
}

/** The paths under a directory, relative to it ([] if it does not exist). */
function filesUnder(/** @type {string} */ directory) {
  try {
    return readdirSync(directory, { recursive: true, encoding: "utf8" });
  } catch {
    return [];
  }
}

function modifiedAt(/** @type {string} */ path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function existsFile(/** @type {string} */ path) {
  return modifiedAt(path) !== undefined;
}

// ---- stack traces into src/ --------------------------------------------------------------------

/** Error.prepareStackTrace: V8's stack trace, with each position in dist/ as the .ts one it came from. */
function mappedStackTrace(/** @type {Error} */ error, /** @type {NodeJS.CallSite[]} */ callSites) {
  let header;
  try {
    header = Error.prototype.toString.call(error);
  } catch {
    header = "<error>";
  }
  return header + callSites.map((site) => `\n    at ${mappedCallSite(site)}`).join("");
}

function mappedCallSite(/** @type {NodeJS.CallSite} */ site) {
  const text = String(site);
  const file = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!file?.startsWith(DIST_URL) || line === null || column === null) return text;
  const map = sourceMapOf(file);
  const origin = map?.sourceMap.findEntry(line - 1, column - 1);
  if (!origin || !("originalSource" in origin)) return text;
  const source = fileURLToPath(new URL(origin.originalSource, map.url));
  const position = `${file}:${line}:${column}`;
  const at = text.lastIndexOf(position);
  if (at < 0) return text;
  return `${text.slice(0, at)}${source}:${origin.originalLine + 1}:${origin.originalColumn + 1}${text.slice(at + position.length)}`;
}

function sourceMapOf(/** @type {string} */ file) {
  if (!sourceMaps.has(file)) {
    let found = null;
    try {
      const name = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(new URL(file), "utf8"))?.[1];
      if (name !== undefined) {
        const url = new URL(name, file);
        found = { url, sourceMap: new SourceMap(JSON.parse(readFileSync(url, "utf8"))) };
      }
    } catch {
      // No source map to read: the position stays dist/'s.
    }
    sourceMaps.set(file, found);
  }
  return sourceMaps.get(file);
}
