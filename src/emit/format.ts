import type { Options, Plugin } from "prettier";
import { fitsPrintWidth } from "./code-layout.ts";
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

/**
 * Prettier's standalone build and the plugins tablegen formats with, loaded on first use: a project
 * whose files all come out of their templates in prettier's layout never loads them.
 */
let prettier: Promise<{ format: typeof import("prettier/standalone").format; plugins: Plugin[] }> | undefined;
const loadPrettier = () =>
  (prettier ??= Promise.all([
    import("prettier/standalone"),
    import("prettier/plugins/babel"),
    import("prettier/plugins/estree"),
    import("prettier/plugins/markdown"),
  ]).then(([{ format }, babel, estree, markdown]) => ({
    format,
    plugins: [babel, estree, markdown, typescript] as Plugin[],
  })));

/** A file for prettier: its path, its text and the parser that reads it. */
export interface FormatJob {
  path: string;
  text: string;
  parser: string;
}

/**
 * Lays out files with prettier, each as `formatWithPrettier` does, answering in the jobs' order:
 * in this thread (`formatInThread`), or spread over worker threads (the CLI's src/cli/format-pool.ts).
 */
export type FormatFiles = (jobs: FormatJob[], config: Options) => Promise<string[]>;

/** One file laid out by prettier with the plugins tablegen formats with. */
export async function formatWithPrettier({ path, text, parser }: FormatJob, config: Options): Promise<string> {
  const { format, plugins } = await loadPrettier();
  return format(text, { ...config, filepath: path, parser, plugins });
}

export const formatInThread: FormatFiles = (jobs, config) =>
  Promise.all(jobs.map((job) => formatWithPrettier(job, config)));

/** A formatted file that a previous generation wrote from the same source, if it is still as written. */
export type Reuse = (path: string, sourceHash: string) => string | undefined;

export interface Formatter {
  /** The generated server's prettier configuration (`.prettierrc.json`). */
  config: Options;
  /** Prettier's version: what a file becomes depends on it. */
  version: string;
  /** Who runs prettier (default: this thread). */
  formatFiles?: FormatFiles;
}

/**
 * Every generated file prettier knows, laid out by prettier with the configuration the generated
 * server carries (`.prettierrc.json`), so a user who formats the server gets the same files; and
 * the listing of them all (`.tablegen-files`) with the hashes that let the next generation reuse
 * a file whose source has not changed. Files in `laidOut` are in prettier's layout already (tablegen's
 * own files, copied as they are): they are kept as they are. Files in `rendered` were written by their
 * templates in prettier's layout: they are kept as they are when their code fits the print width
 * (`fitsPrintWidth`; Markdown and JSON always), else prettier lays them out. A file kept as it is
 * is listed with one hash, its text's, as its source and its content.
 */
export async function formatTree(
  tree: FileTree,
  formatter: Formatter,
  reuse: Reuse = () => undefined,
  { laidOut = new Set(), rendered = new Set() }: { laidOut?: ReadonlySet<string>; rendered?: ReadonlySet<string> } = {},
): Promise<FileTree> {
  const { config, formatFiles = formatInThread } = formatter;
  // What a file becomes depends on prettier's version and configuration as much as on its source.
  const salt = `prettier ${formatter.version} ${JSON.stringify(config)}\n`;
  const files = [...tree].map(([path, source]) => {
    const parser = PARSERS.find(([pattern]) => pattern.test(path))?.[1];
    const asWritten =
      parser === undefined ||
      laidOut.has(path) ||
      (rendered.has(path) &&
        (parser === "markdown" || parser === "json" || fitsPrintWidth(source, config.printWidth ?? 80)));
    const sourceHash = asWritten ? textHash(source) : textHash(salt + source);
    const content = (asWritten ? source : reuse(path, sourceHash)) as string | Promise<string> | undefined;
    return { path, source, parser, sourceHash, content, asWritten };
  });
  // Prettier's files first, so that its threads work while this one lays out the JSON.
  const toPrettier = (pending: typeof files) => {
    const jobs = pending.map(({ path, source, parser }) => ({ path, text: source, parser: parser! }));
    const formatted = jobs.length === 0 ? Promise.resolve([]) : formatFiles(jobs, config);
    pending.forEach((file, index) => (file.content = formatted.then((contents) => contents[index]!)));
  };
  toPrettier(files.filter(({ parser, content }) => content === undefined && parser !== "json"));
  // Other JSON written by JSON.stringify (package.json; a document prettier must fill an array of) is
  // laid out directly, one property a line as npm writes package.json; prettier lays out the rest.
  const json = files.filter(({ parser, content }) => content === undefined && parser === "json");
  for (const file of json) file.content = laidOutJson(file.source, config.printWidth ?? 80);
  toPrettier(json.filter(({ content }) => content === undefined));

  const written = await Promise.all(
    files.map(async ({ path, sourceHash, content, asWritten }) => {
      const text = (await content)!;
      return { path, source: sourceHash, content: text, contentHash: asWritten ? sourceHash : textHash(text) };
    }),
  );
  const listing = ownedListing(
    written.map(({ path, source, contentHash }) => ({ path, source, content: contentHash })),
  );
  return fileTree([...written.map(({ path, content }) => [path, content] as const), [OWNED_FILES, listing]]);
}
