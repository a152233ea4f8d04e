import { existsSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { unifiedDiff } from "../tree/diff.ts";
import { OWNED_FILES, parseOwnedListing, textHash, type FileTree } from "../tree/file-tree.ts";
import type { Reuse } from "../emit/format.ts";
import { makeDirectory } from "./directories.ts";

/**
 * The one writer: every file tablegen puts into a generated server goes through it, and
 * `--check` compares through it. Synchronous calls: hundreds of small files are written several
 * times faster than through the thread pool.
 */

export interface Output {
  /** Files generation owns, their listing (.tablegen-files) included: rewritten when they change, removed when no longer produced. */
  generated?: FileTree;
  /** Files written once and kept as history (migration folders): never overwritten, never listed or removed. */
  created?: FileTree;
}

export interface Difference {
  path: string;
  status: "differs" | "missing" | "extra";
  /** A unified diff from the file on disk to what is generated. */
  diff: string;
}

/** Files of a previous generation, as listed in the output directory. */
function ownedFiles(outDir: string): string[] {
  const listing = contentOf(join(outDir, OWNED_FILES));
  return listing === undefined ? [] : parseOwnedListing(listing).map(({ path }) => path);
}

/**
 * The files of the previous generation that the next one can keep without formatting them again:
 * those whose source is the same and whose content is still what was written (not edited since).
 */
export function previousOutput(outDir: string): Reuse {
  const listing = contentOf(join(outDir, OWNED_FILES));
  const entries = new Map(parseOwnedListing(listing ?? "").map((entry) => [entry.path, entry]));
  return (path, sourceHash) => {
    const entry = entries.get(path);
    if (entry?.source !== sourceHash) return undefined;
    const content = contentOf(join(outDir, path));
    return content !== undefined && textHash(content) === entry.content ? content : undefined;
  };
}

/**
 * Writes an output: generated files whose content changed are rewritten, files the previous
 * generation wrote and this one does not are removed, created files are added, and nothing else in
 * the directory is touched. Returns what was written and removed.
 */
export function writeOutput(outDir: string, output: Output): { written: string[]; removed: string[] } {
  const written: string[] = [];
  const directories = new Set<string>();
  const write = (path: string, content: string) => {
    const target = join(outDir, path);
    const directory = dirname(target);
    if (!directories.has(directory)) makeDirectory(directory);
    directories.add(directory);
    writeFileSync(target, content);
    written.push(path);
  };
  const removed: string[] = [];
  if (output.generated) {
    const full = output.generated;
    const previous = ownedFiles(outDir);
    for (const [path, content] of full) if (contentOf(join(outDir, path)) !== content) write(path, content);
    for (const path of previous.filter((path) => !full.has(path))) {
      rmSync(join(outDir, path), { force: true });
      removeEmptyParents(outDir, dirname(path));
      removed.push(path);
    }
  }
  for (const [path, content] of output.created ?? []) {
    if (existsSync(join(outDir, path))) throw new Error(`${path} exists already: created files are never overwritten`);
    write(path, content);
  }
  return { written, removed };
}

/** What writing a generated tree would do to files that are not as tablegen last wrote them. */
export interface Overwrites {
  /** Files on disk that the previous generation did not write (not listed), which would be replaced. */
  foreign: string[];
  /** Files tablegen wrote and someone changed since, which would be replaced or removed. */
  edited: string[];
}

/**
 * The files a write of the generated tree would replace or remove although they are not what
 * tablegen last wrote: files it never wrote, and generated files edited by hand (their content no
 * longer has the hash `.tablegen-files` keeps). A file already holding what is generated is neither.
 */
export function overwrites(outDir: string, tree: FileTree): Overwrites {
  const listing = contentOf(join(outDir, OWNED_FILES));
  const listed = new Map(parseOwnedListing(listing ?? "").map((entry) => [entry.path, entry.content]));
  const foreign: string[] = [];
  const edited: string[] = [];
  for (const [path, content] of tree) {
    if (path === OWNED_FILES) continue;
    const current = contentOf(join(outDir, path));
    if (current === undefined || current === content) continue;
    const hash = listed.get(path);
    if (hash === undefined) foreign.push(path);
    // A listing of tablegen before hashes (no content hash) cannot tell an edit.
    else if (hash !== "" && textHash(current) !== hash) edited.push(path);
  }
  for (const [path, hash] of listed) {
    if (tree.has(path) || hash === "") continue;
    const current = contentOf(join(outDir, path));
    if (current !== undefined && textHash(current) !== hash) edited.push(path);
  }
  return { foreign, edited };
}

/** Removes files the writer created (a migration that failed to apply), and the folders they leave empty. */
export function removeCreated(outDir: string, created: FileTree): void {
  for (const path of created.keys()) {
    rmSync(join(outDir, path), { force: true });
    removeEmptyParents(outDir, dirname(path));
  }
}

/** What differs between the generated tree and the directory, without writing anything. */
export function compareTree(outDir: string, tree: FileTree): Difference[] {
  const full = tree;
  const differences: Difference[] = [];
  for (const [path, content] of full) {
    const current = contentOf(join(outDir, path));
    if (current === undefined)
      differences.push({ path, status: "missing", diff: unifiedDiff(path, undefined, content) });
    else if (current !== content)
      differences.push({ path, status: "differs", diff: unifiedDiff(path, current, content) });
  }
  for (const path of ownedFiles(outDir)) {
    const current = contentOf(join(outDir, path));
    if (!full.has(path) && current !== undefined)
      differences.push({ path, status: "extra", diff: unifiedDiff(path, current, undefined) });
  }
  return differences;
}

/** A file's content, or undefined when there is none. */
function contentOf(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function removeEmptyParents(root: string, dir: string): void {
  for (let current = dir; current !== "." && current !== ""; current = dirname(current)) {
    const full = join(root, current);
    if (!existsSync(full) || readdirSync(full).length > 0) return;
    rmdirSync(full);
  }
}

/**
 * Writes a file whole or not at all: a file beside it, then renamed over it, so that a reader (or
 * another process writing it too) never sees it half-written. If the write fails, the file beside
 * it is removed and the error thrown.
 */
export function writeAtomically(path: string, data: string | Uint8Array, mode?: number): void {
  const temporary = `${path}.tablegen-${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data, mode === undefined ? undefined : { mode });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
