import { createHash } from "node:crypto";

/** Generated files by path (POSIX, relative to the output directory), in a stable order. */
export type FileTree = ReadonlyMap<string, string>;

export function fileTree(entries: Iterable<readonly [string, string]>): FileTree {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const tree = new Map<string, string>();
  for (const [path, content] of sorted) {
    if (tree.has(path)) throw new Error(`two emitters produced ${path}`);
    tree.set(path, content);
  }
  return tree;
}

/**
 * The list of files a generation wrote, kept in the output: one line per file, `<path> <source>
 * <content>`, the hashes of what the templates produced and of what was written (after prettier).
 * The next generation removes the files it no longer produces, and reuses a file whose source is
 * unchanged and whose content is still what it wrote, without formatting it again.
 */
export const OWNED_FILES = ".tablegen-files";

export interface OwnedFile {
  path: string;
  source: string;
  content: string;
}

/**
 * A short, stable hash of a file's text (its UTF-8 bytes). Encoded by Buffer.from first: the hash's
 * own encoding of a string takes twice as long, which a large project's documents (tens of
 * megabytes, hashed twice) make a few hundred milliseconds.
 */
export const textHash = (text: string) => createHash("sha256").update(Buffer.from(text)).digest("hex").slice(0, 16);

export function ownedListing(files: readonly OwnedFile[]): string {
  return files.map(({ path, source, content }) => `${path} ${source} ${content}\n`).join("");
}

/** The entries of a listing; a path alone (the listing of tablegen before hashes) has none. */
export function parseOwnedListing(text: string): OwnedFile[] {
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const [path = "", source = "", content = ""] = line.split(" ");
      return { path, source, content };
    });
}
