import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile, readdir, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileTree, type FileTree } from "./file-tree.ts";

/** The list of files a generation wrote, kept in the output so the next one can remove stale ones. */
const OWNED_FILES = ".tablegen-files";

export interface Difference {
  path: string;
  status: "differs" | "missing" | "extra";
}

/** Files of a previous generation, as listed in the output directory. */
async function ownedFiles(outDir: string): Promise<string[]> {
  const listing = join(outDir, OWNED_FILES);
  if (!existsSync(listing)) return [];
  return (await readFile(listing, "utf8")).split("\n").filter((line) => line.length > 0);
}

/** The tree with its own file list added: what is written and what --check compares. */
export function withOwnedList(tree: FileTree): FileTree {
  const paths = [...tree.keys(), OWNED_FILES].sort();
  return fileTree([...tree, [OWNED_FILES, paths.join("\n") + "\n"]]);
}

/**
 * Writes the tree: files whose content changed are rewritten, files the previous generation
 * wrote and this one does not are removed, and nothing else in the directory is touched.
 */
export async function writeTree(outDir: string, tree: FileTree): Promise<{ written: string[]; removed: string[] }> {
  const full = withOwnedList(tree);
  const previous = await ownedFiles(outDir);
  const written: string[] = [];
  const directories = new Set<string>();
  // Synchronous calls: hundreds of small files are written several times faster than through the thread pool.
  for (const [path, content] of full) {
    const target = join(outDir, path);
    if (contentOf(target) === content) continue;
    const directory = dirname(target);
    if (!directories.has(directory)) mkdirSync(directory, { recursive: true });
    directories.add(directory);
    writeFileSync(target, content);
    written.push(path);
  }
  const removed = previous.filter((path) => !full.has(path));
  for (const path of removed) {
    await rm(join(outDir, path), { force: true });
    await removeEmptyParents(outDir, dirname(path));
  }
  return { written, removed };
}

/** What differs between the tree and the directory, without writing anything. */
export async function compareTree(outDir: string, tree: FileTree): Promise<Difference[]> {
  const full = withOwnedList(tree);
  const differences: Difference[] = [];
  for (const [path, content] of full) {
    const target = join(outDir, path);
    if (!existsSync(target)) differences.push({ path, status: "missing" });
    else if ((await readFile(target, "utf8")) !== content) differences.push({ path, status: "differs" });
  }
  for (const path of await ownedFiles(outDir)) {
    if (!full.has(path) && existsSync(join(outDir, path))) differences.push({ path, status: "extra" });
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

async function removeEmptyParents(root: string, dir: string): Promise<void> {
  for (let current = dir; current !== "." && current !== ""; current = dirname(current)) {
    const full = join(root, current);
    if (!existsSync(full) || (await readdir(full)).length > 0) return;
    await rmdir(full);
  }
}
