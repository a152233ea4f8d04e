import { format, type Options } from "prettier";
import { fileTree, type FileTree } from "../tree/file-tree.ts";

/** Files prettier lays out; the others (SQL, Prisma schema, env files) are written in their final form. */
const FORMATTED = /\.(ts|json|md)$/;

/**
 * TypeScript is parsed with Babel's parser: it lays out the same code as prettier's default for
 * `.ts` (typescript-estree), which the golden tests check with `prettier --check`, in half the time.
 */
const parserOf = (path: string) => (path.endsWith(".ts") ? { parser: "babel-ts" } : {});

/**
 * Every generated file prettier knows, laid out by prettier with the configuration the generated
 * server carries (`.prettierrc.json`), so a user who formats the server gets the same files.
 */
export async function formatTree(tree: FileTree, config: Options): Promise<FileTree> {
  const entries = await Promise.all(
    [...tree].map(async ([path, content]) =>
      FORMATTED.test(path)
        ? ([path, await format(content, { ...config, filepath: path, ...parserOf(path) })] as const)
        : ([path, content] as const),
    ),
  );
  return fileTree(entries);
}
