import type { Options, Plugin } from "prettier";
import * as babel from "prettier/plugins/babel";
import * as estree from "prettier/plugins/estree";
import * as markdown from "prettier/plugins/markdown";
import { format } from "prettier/standalone";
import { laidOutJson } from "./json-layout.ts";
import { OWNED_FILES, fileTree, ownedListing, textHash, type FileTree } from "../tree/file-tree.ts";

/**
 * How each kind of file prettier lays out is parsed; the others (SQL, the Prisma schema, env files)
 * are written in their final form. TypeScript goes through Babel's parser: it lays out the same code
 * as prettier's default for `.ts` (which the golden tests check with `prettier --check`) in half the
 * time, and prettier's standalone build with these plugins alone starts sooner.
 */
const PARSERS: [RegExp, string][] = [
  [/\.ts$/, "babel-ts"],
  [/\.js$/, "babel"],
  [/\.json$/, "json"],
  [/\.md$/, "markdown"],
];
/**
 * TypeScript as a language, parsed by Babel: prettier's markdown formats the ```ts blocks of a
 * README with it, as prettier's TypeScript plugin would (prettier --check checks them too).
 */
const typescript: Plugin = {
  languages: [{ name: "TypeScript", aliases: ["ts"], extensions: [".ts"], parsers: ["babel-ts"] }],
};
const PLUGINS = [babel, estree, markdown, typescript] as Plugin[];

/** A formatted file that a previous generation wrote from the same source, if it is still as written. */
export type Reuse = (path: string, sourceHash: string) => string | undefined;

/**
 * Every generated file prettier knows, laid out by prettier with the configuration the generated
 * server carries (`.prettierrc.json`), so a user who formats the server gets the same files; and
 * the listing of them all (`.tablegen-files`) with the hashes that let the next generation reuse
 * a file whose source has not changed.
 */
export async function formatTree(
  tree: FileTree,
  formatter: { config: Options; version: string },
  reuse: Reuse = () => undefined,
): Promise<FileTree> {
  const { config } = formatter;
  // What a file becomes depends on prettier's version and configuration as much as on its source.
  const salt = `prettier ${formatter.version} ${JSON.stringify(config)}\n`;
  const files = await Promise.all(
    [...tree].map(async ([path, source]) => {
      const parser = PARSERS.find(([pattern]) => pattern.test(path))?.[1];
      const sourceHash = textHash(salt + source);
      const content =
        parser === undefined
          ? source
          : (reuse(path, sourceHash) ??
            // JSON is laid out directly: prettier takes seconds over a large project's OpenAPI documents.
            (parser === "json" ? laidOutJson(source, config.printWidth ?? 80) : undefined) ??
            (await format(source, { ...config, filepath: path, parser, plugins: PLUGINS })));
      return { path, source: sourceHash, content, contentHash: textHash(content) };
    }),
  );
  const listing = ownedListing(
    [...files.map(({ path, source, contentHash }) => ({ path, source, content: contentHash }))].sort((a, b) =>
      a.path < b.path ? -1 : 1,
    ),
  );
  return fileTree([...files.map(({ path, content }) => [path, content] as const), [OWNED_FILES, listing]]);
}
