import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { PrecompiledTemplates, Sources } from "../emit/templates.ts";
import { MIGRATIONS, SNAPSHOT } from "../emit/migration.ts";
import { UserError } from "../errors.ts";
import { parseManifest, type ManifestSource } from "../manifest/load.ts";
import type { RawManifest } from "../manifest/schema.ts";
import { inFileOrder, ManifestError, validateManifest, type LocatedProblem } from "../manifest/validate.ts";
import { buildModel, withQueryColumns } from "../model/build.ts";
import { compileManifest, type Compiled } from "../model/index.ts";
import type { Model } from "../model/types.ts";
import { pastSunsets } from "../model/versions.ts";
import { packagePath } from "./paths.ts";
import { inspectQueries, type QueryProblem } from "./queries.ts";

/**
 * The files the CLI reads for the pure layers below it: tablegen's own sources (templates,
 * runtime code, package versions), manifests, and what a generated server already holds.
 */

let sources: Sources | undefined;

/** Where `npm run build` writes the templates compiled ahead of time (scripts/precompile-templates.ts). */
export const PRECOMPILED = "dist/templates.json";

/** tablegen's templates, runtime sources and package versions, read once per process. */
export function loadSources(): Sources {
  if (sources) return sources;
  const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const precompiled = readPrecompiled(packagePath(PRECOMPILED));
  sources = {
    templates: filesUnder(packagePath("templates")),
    ...(precompiled && { precompiled }),
    runtime: filesUnder(packagePath("src", "runtime")),
    packageVersions: { ...pkg.devDependencies, ...pkg.dependencies },
  };
  return sources;
}

/**
 * The templates `npm run build` compiled, if its file is there and whole: without it (no build, or a
 * build cut short) the templates are compiled as they are read.
 */
export function readPrecompiled(file: string): PrecompiledTemplates | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const read = JSON.parse(readFileSync(file, "utf8")) as Partial<PrecompiledTemplates> | null;
    if (typeof read?.handlebars === "string" && typeof read.templates === "object" && read.templates !== null) {
      return read as PrecompiledTemplates;
    }
  } catch {
    // Not JSON: as if there were none.
  }
  return undefined;
}

function filesUnder(dir: string): Map<string, string> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const files = entries.map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return [relative(dir, path).split("\\").join("/"), readFileSync(path, "utf8")] as const;
  });
  return new Map(files.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A text file the user named, or one clear message saying why it cannot be read. */
function readUserFile(file: string, what: string, missing: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UserError(`${file}: ${missing}`);
    if (code === "EISDIR") throw new UserError(`${file}: is a directory, not ${what}`);
    throw new UserError(`${file}: cannot be read (${code ?? "unknown error"})`);
  }
}

/** A manifest file, validated, and its model. */
export function readManifestFile(file: string): Compiled {
  return compileManifest(
    file,
    readUserFile(file, "a manifest file", 'manifest not found (run "tablegen init" to create one)'),
  );
}

/**
 * A manifest file, validated, and its model, as `readManifestFile` reads it; when it has problems,
 * every one a single run can find: the custom queries whose tables are sound are prepared too
 * (src/manifest/checkable.ts), and what their databases refuse is listed with the others, in the
 * order of the file. (A valid manifest's queries are checked by `checkedModel`.)
 */
export async function readManifest(file: string): Promise<Compiled> {
  return compileManifestText(
    file,
    readUserFile(file, "a manifest file", 'manifest not found (run "tablegen init" to create one)'),
  );
}

/** A manifest's text, compiled as `readManifest` compiles its file (the studio's edits, before they are saved). */
export async function compileManifestText(file: string, text: string): Promise<Compiled> {
  try {
    return compileManifest(file, text);
  } catch (error) {
    if (!(error instanceof ManifestError) || !error.unchecked) throw error;
    const { part, locate } = error.unchecked;
    let model: Model;
    try {
      model = buildModel(part);
    } catch {
      throw error; // What is left does not make a model: its queries cannot be prepared.
    }
    const { problems } = await inspectQueries(model);
    if (problems.length === 0) throw error;
    throw new ManifestError(file, inFileOrder([...error.located, ...queryProblems(problems, file, locate)]));
  }
}

/**
 * The compiled manifest's model with its custom queries' output columns, as preparing each query
 * against its tables describes them (src/cli/queries.ts). Throws the queries' problems: what a
 * query's database refuses is a manifest problem like any other, located at its SQL.
 */
export async function checkedModel(compiled: Compiled, file: string): Promise<Model> {
  const { problems, columns } = await inspectQueries(compiled.model);
  if (problems.length === 0) return withQueryColumns(compiled.model, columns);
  throw new ManifestError(file, inFileOrder(queryProblems(problems, file, compiled.locate!)));
}

/** What the queries' databases refused, each located at its query's SQL. */
function queryProblems(problems: QueryProblem[], file: string, locate: ManifestSource["locate"]): LocatedProblem[] {
  return problems.map(({ query, message }) => {
    const path = ["queries", query, "sql"];
    const { line, column } = locate(path);
    return { line, column, path, message, text: `${file}:${line}:${column} queries.${query}.sql: ${message}` };
  });
}

/**
 * What a valid manifest still deserves a word about, located like its problems: a version whose
 * sunset has passed, which the server answers 410 Gone from the start.
 */
export function manifestWarnings(compiled: Compiled, file: string, now = Date.now()): string[] {
  return pastSunsets(compiled.model, now).map(({ version, sunset }) => {
    const path = ["versions", version, "sunset"];
    const { line, column } = compiled.locate?.(path) ?? { line: 1, column: 1 };
    return (
      `Warning: ${file}:${line}:${column} ${path.join(".")}: ${sunset} has passed: ` +
      `every request to ${version} is answered 410 Gone`
    );
  });
}

/** Migration folders of a server, oldest first. */
export function existingMigrations(outDir: string): string[] {
  const dir = join(outDir, MIGRATIONS);
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

/** The Prisma schema the latest migration leads to, if it kept one. */
export function latestSchema(outDir: string): string | undefined {
  const latest = existingMigrations(outDir).at(-1);
  const path = latest && join(outDir, MIGRATIONS, latest, "schema.prisma");
  return path && existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

/** The manifest the latest migration was made from, validated like any manifest, if it kept one. */
export function latestSnapshot(outDir: string): RawManifest | undefined {
  const latest = existingMigrations(outDir).at(-1);
  const path = latest && join(outDir, MIGRATIONS, latest, SNAPSHOT);
  if (!path || !existsSync(path)) return undefined;
  return validateManifest(parseManifest(path, readFileSync(path, "utf8")));
}
