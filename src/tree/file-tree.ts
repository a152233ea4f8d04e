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

/** The list of files a generation wrote, kept in the output so the next one can remove stale ones. */
export const OWNED_FILES = ".tablegen-files";

/** The tree with its own file list added: what is written and what --check compares. */
export function withOwnedList(tree: FileTree): FileTree {
  const paths = [...tree.keys(), OWNED_FILES].sort();
  return fileTree([...tree, [OWNED_FILES, paths.join("\n") + "\n"]]);
}
