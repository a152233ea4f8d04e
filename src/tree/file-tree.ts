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
