import { existsSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { CUSTOM, emitCustomStarter, emitServer } from "../emit/index.ts";
import { firstMigrationSql } from "../emit/first-migration.ts";
import { emitMigration, MIGRATIONS, migrationFolderName } from "../emit/migration.ts";
import { emitPrismaSchema } from "../emit/prisma-schema.ts";
import type { RawManifest } from "../manifest/schema.ts";
import type { Model } from "../model/types.ts";
import { targetFor } from "../targets/index.ts";
import { UserError } from "../errors.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { CLIENT_DIR, refreshPrismaClient } from "./client.ts";
import { makeDirectory, removeDirectories } from "./directories.ts";
import { allowedVersions, brokenVersions, publishedBreaks } from "./guard.ts";
import { checkedModel, existingMigrations, loadSources, manifestWarnings, readManifest } from "./host.ts";
import { diffSchemas } from "./prisma/engine.ts";
import { compareTree, overwrites, previousOutput, writeOutput, type Difference } from "./writer.ts";

export interface GenerateOptions {
  manifest: string;
  out: string;
  check?: boolean;
  /** Overwrite files in the output directory that tablegen did not write. */
  force?: boolean;
  /** Published versions whose documents may change incompatibly (`--allow-breaking`, each value one label or a comma list). */
  allowBreaking?: string[];
}

export interface GenerateResult {
  ok: boolean;
  summary: string;
  /** What the user should know although generation succeeded: hand edits replaced, a client not refreshed. */
  warnings?: string[];
}

/** `tablegen generate`: manifest → server files (or, with --check, a comparison with them). */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  if (options.check) {
    const { shown, differences, breaks, warnings } = await compareOutput(options);
    if (differences.length === 0)
      return { ok: true, summary: `${shown} is up to date with ${options.manifest}`, warnings };
    const lines = differences.map(({ path, status }) => `  ${status.padEnd(7)} ${path}`);
    const diffs = differences.map(({ diff }) => diff.trimEnd());
    return {
      ok: false,
      warnings,
      summary: [
        `${shown} is not what ${options.manifest} generates (${plural(differences.length, "file")}):`,
        ...lines,
        ...(breaks.length > 0
          ? [
              `The changes break published versions of the API (${plural(breaks.length, "break")}):`,
              ...indented(breaks),
            ]
          : []),
        "",
        ...diffs,
        "",
        breaks.length > 0
          ? `Keep the published versions compatible (make the change in a new version), or run ` +
            `"tablegen generate --allow-breaking ${brokenVersions(breaks).join(",")}" to accept the breaks on purpose.`
          : 'Run "tablegen generate" to update it.',
      ].join("\n"),
    };
  }

  const compiled = await readManifest(options.manifest);
  // The custom queries are prepared in a scratch database, which describes their rows to the emitters.
  const checked = checkedModel(compiled, options.manifest);
  checked.catch(() => undefined); // awaited below, before anything is emitted or written
  const outDir = resolve(options.out);
  const shown = relative(process.cwd(), outDir) || ".";
  allowedVersions(options.allowBreaking);
  const warnings = manifestWarnings(compiled, options.manifest);

  // A directory that cannot be made fails at once, before the files are emitted.
  const created = makeDirectory(outDir);
  let result: GenerateResult;
  try {
    result = await generateInto(outDir, shown, compiled, options, checked);
  } catch (error) {
    removeDirectories(created);
    throw error;
  }
  return { ...result, warnings: [...warnings, ...(result.warnings ?? [])] };
}

/** What `generate --check` finds, as data: the files that differ from what the manifest generates, and the breaks. */
export interface OutputComparison {
  /** The output directory as the messages show it (relative to the working directory). */
  shown: string;
  differences: Difference[];
  /** The breaks of published versions the differences hold (none when no file differs). */
  breaks: string[];
  /** What the manifest still deserves a word about (a version whose sunset has passed). */
  warnings: string[];
}

/**
 * `generate --check` without its summary (the studio's Changes page shows the same comparison):
 * the manifest read and its queries checked as generate does, its server emitted in memory and
 * compared, file by file, with the output directory through the writer.
 */
export async function compareOutput(options: GenerateOptions): Promise<OutputComparison> {
  const compiled = await readManifest(options.manifest);
  // The custom queries are prepared in a scratch database, which describes their rows to the emitters.
  const checked = checkedModel(compiled, options.manifest);
  checked.catch(() => undefined); // awaited below, before anything is emitted
  const outDir = resolve(options.out);
  const shown = relative(process.cwd(), outDir) || ".";
  const allowed = allowedVersions(options.allowBreaking);
  const warnings = manifestWarnings(compiled, options.manifest);
  const emitted = await emit(await checked, options.manifest, outDir);
  const differences = compareTree(outDir, emitted);
  const breaks =
    differences.length === 0 ? [] : publishedBreaks(outDir, emitted, allowed, (path) => shownPath(outDir, path));
  return { shown, differences, breaks, warnings };
}

async function generateInto(
  outDir: string,
  shown: string,
  compiled: { manifest: RawManifest; model: Model },
  options: GenerateOptions,
  checked: Promise<Model>,
): Promise<GenerateResult> {
  const { tree, migration } = await generateServer(outDir, compiled, options.manifest, checked);
  const at = (path: string) => shownPath(outDir, path);
  const breaks = publishedBreaks(outDir, tree, allowedVersions(options.allowBreaking), at);
  if (breaks.length > 0) {
    throw new UserError(
      [
        `${options.manifest} breaks published versions of the API (${plural(breaks.length, "break")}), so nothing was written:`,
        ...indented(breaks),
        `A published version (${at("openapi")}/<version>.json) may only grow: make the change in a new version, ` +
          `or run again with --allow-breaking ${brokenVersions(breaks).join(",")} to accept it on purpose.`,
      ].join("\n"),
    );
  }
  const { foreign, edited } = overwrites(outDir, tree);
  if (foreign.length > 0 && !options.force) {
    const them = foreign.length === 1 ? "it" : "them";
    throw new UserError(
      `${foreign.map(at).join(", ")}: not written by tablegen (not listed in ${at(".tablegen-files")}), and ` +
        `generate would overwrite ${them}. Nothing was written. Generate into another directory (--out), ` +
        `move ${them} away, or run again with --force to overwrite ${them}.`,
    );
  }
  // Your folder: a starter when there is none, and never anything else.
  const starter = existsSync(join(outDir, CUSTOM)) ? undefined : emitCustomStarter(compiled.model, loadSources());
  const created = new Map([...(migration?.files ?? []), ...(starter ?? [])]);
  const { written, removed } = writeOutput(outDir, { generated: tree, created });
  const unchanged = tree.size - (written.length - created.size);
  const parts = [`Generated ${shown}: ${plural(written.length, "file")} written, ${unchanged} unchanged`];
  if (removed.length > 0) parts.push(`${removed.length} removed (${removed.join(", ")})`);
  let summary = parts.join(", ");
  if (migration) summary += `\nWrote the first migration: ${relative(process.cwd(), resolve(outDir, migration.dir))}`;
  if (foreign.length > 0) summary += `\nOverwrote with --force: ${foreign.map(at).join(", ")}`;

  const warnings: string[] = [];
  if (edited.length > 0) {
    warnings.push(
      `Warning: replaced your changes to ${edited.map(at).join(", ")}: generated files are rewritten from the ` +
        `manifest. Your own code belongs in ${at(CUSTOM)}/, which tablegen never touches ` +
        `(hooks in ${CUSTOM}/hooks/<table>.ts, routes in ${CUSTOM}/routes.ts; see the server's README.md).`,
    );
  }
  const client = await refreshPrismaClient(
    outDir,
    targetFor(compiled.model.database),
    written.includes("prisma/schema.prisma"),
  );
  if (client.status === "refreshed") summary += `\nRefreshed the Prisma Client: ${at(CLIENT_DIR)}`;
  if (client.status === "failed") {
    warnings.push(
      `Warning: could not refresh the Prisma Client in ${at(CLIENT_DIR)} (${client.reason}); ` +
        `run "npx prisma generate" in ${shown}.`,
    );
  }
  return { ok: true, summary, warnings };
}

const shownPath = (outDir: string, path: string) => relative(process.cwd(), join(outDir, path));
const indented = (lines: string[]) => lines.map((line) => `  ${line}`);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** The server's files; those of the previous generation whose source is unchanged are kept as they are. */
function emit(model: Model, manifest: string, outDir: string): Promise<FileTree> {
  return emitServer(model, { manifestName: basename(manifest), sources: loadSources(), reuse: previousOutput(outDir) });
}

/**
 * The server's files and, when it has no migration yet, its first one. Its SQL is written from the
 * model (src/emit/first-migration.ts) as Prisma would write it; when it cannot be, the diff takes a
 * Prisma process (about a second), which starts first and runs while the custom queries are checked
 * (`checked`: the model with its queries' columns, src/cli/queries.ts) and the files are emitted.
 */
export async function generateServer(
  outDir: string,
  { manifest, model }: { manifest: RawManifest; model: Model },
  manifestFile: string,
  checked: Promise<Model>,
): Promise<{ tree: FileTree; migration?: { dir: string; files: FileTree } }> {
  const target = targetFor(model.database);
  const schema = emitPrismaSchema(model);
  const first = existingMigrations(outDir).length === 0;
  // Written from the model when it can be (as Prisma would write it), else by Prisma.
  const diff = first ? (firstMigrationSql(model) ?? diffSchemas(undefined, schema)) : undefined;
  const [tree, sql] = await Promise.all([checked.then((described) => emit(described, manifestFile, outDir)), diff]);
  if (sql === undefined) return { tree };
  const name = migrationFolderName("init", [], new Date());
  return {
    tree,
    migration: {
      dir: `${MIGRATIONS}/${name}`,
      files: await emitMigration({ name, sql, schema, manifest }, target, true, loadSources()),
    },
  };
}
