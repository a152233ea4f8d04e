import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { breakingChanges } from "../emit/breaking.ts";
import type { JsonSchema } from "../emit/schemas.ts";
import { VERSION_LABEL } from "../manifest/schema.ts";
import { UserError } from "../errors.ts";
import type { FileTree } from "../tree/file-tree.ts";

/** Where a server keeps the published document of each version. */
const DOCUMENTS = "openapi";

/**
 * The breaking-change guard of `generate`: each version the server already has a document of
 * (`openapi/<version>.json`, as committed) compared with the document the manifest now produces.
 * Versions in `allowed` are not read. A server without documents (a first generation) has none.
 * `shown` names a path of the server for messages.
 */
export function publishedBreaks(
  outDir: string,
  tree: FileTree,
  allowed: readonly string[],
  shown: (path: string) => string,
): string[] {
  const published = new Map<string, JsonSchema>();
  const produced = new Map<string, JsonSchema>();
  for (const version of publishedVersions(outDir)) {
    if (allowed.includes(version)) continue;
    const path = `${DOCUMENTS}/${version}.json`;
    const text = readFileSync(join(outDir, path), "utf8");
    const now = tree.get(path);
    if (text === now) continue; // unchanged: nothing to compare
    published.set(version, parseDocument(text, shown(path), version));
    if (now !== undefined) produced.set(version, JSON.parse(now) as JsonSchema);
  }
  return breakingChanges(published, produced);
}

/** The versions whose documents the server holds, from the names of `openapi/v<n>.json`. */
function publishedVersions(outDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(outDir, DOCUMENTS));
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) return [];
    throw error;
  }
  return names
    .filter((name) => name.endsWith(".json") && VERSION_LABEL.test(name.slice(0, -5)))
    .map((name) => name.slice(0, -5));
}

function parseDocument(text: string, shown: string, version: string): JsonSchema {
  const fix =
    `generate compares ${version} with it. Restore it (from version control), or run again with ` +
    `--allow-breaking ${version} to replace it. Nothing was written.`;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${shown}: not valid JSON (${(error as Error).message.replace(/\s+/g, " ")}); ${fix}`);
  }
  if (typeof document !== "object" || document === null || typeof (document as JsonSchema).paths !== "object") {
    throw new UserError(`${shown}: not an OpenAPI document (no "paths" object); ${fix}`);
  }
  return document as JsonSchema;
}

/** `--allow-breaking v1 --allow-breaking v2,v3`: the labels, each checked. */
export function allowedVersions(values: readonly string[] | undefined): string[] {
  const labels = (values ?? []).flatMap((value) => value.split(",")).map((label) => label.trim());
  const wrong = labels.filter((label) => !VERSION_LABEL.test(label));
  if (wrong.length > 0) {
    throw new UserError(
      `--allow-breaking: ${wrong.map((label) => JSON.stringify(label)).join(", ")} ` +
        `${wrong.length === 1 ? "is not a version label" : "are not version labels"} (v<number>, as in the manifest's versions)`,
    );
  }
  return labels;
}

/** The versions a list of breaks touches, for the `--allow-breaking` hint. */
export function brokenVersions(breaks: readonly string[]): string[] {
  return [...new Set(breaks.map((line) => line.slice(0, line.indexOf(":"))))];
}
