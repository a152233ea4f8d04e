import { format, type FormatConfig } from "oxfmt";
import { OWNED_FILES, fileTree, ownedListing, textHash, type FileTree } from "../tree/file-tree.ts";
import { prettierConfig, type Sources } from "./templates.ts";

/**
 * The files the formatter lays out: TypeScript, JavaScript, JSON and Markdown. The others (SQL, the
 * Prisma schema, env files, .gitignore) are written in their final form.
 */
const FORMATTED = /\.(ts|js|json|md)$/;

/**
 * Files laid out at once: the formatter runs off this thread, so that two files are laid out while
 * this thread renders the next; with only two, the two OpenAPI documents of a large project would
 * hold both and leave this thread waiting.
 */
const CONCURRENT = 3;

/**
 * Characters from which a file is laid out alone, not beside another as large: a large project's
 * OpenAPI documents (tens of megabytes) each take the formatter most of a gigabyte, which two
 * threads taking at once must each get from the system afresh, in page faults that cost more CPU
 * than the layout itself; one after the other, the second reuses the first's memory.
 */
export const LARGE = 1 << 20;

/**
 * The formatter's options for the prettier configuration the generated server carries
 * (`.prettierrc.json`): oxfmt takes prettier's options and lays code out as prettier does, and a
 * user running prettier over the server gets the same files (test/golden.test.ts checks it with
 * prettier). Prettier's defaults where oxfmt's differ: a print width of 80, package.json as written.
 */
export function formatterOptions(prettierConfig: Record<string, unknown>): FormatConfig {
  return { printWidth: 80, ...prettierConfig, sortPackageJson: false };
}

/** The formatter of generated servers, configured by the `.prettierrc.json` they carry. */
export function serverFormatter(sources: Sources): Formatter {
  return { options: formatterOptions(prettierConfig(sources)), version: sources.packageVersions.oxfmt ?? "" };
}

/** A file laid out by the formatter; its errors (code it cannot parse: a template's mistake) are thrown. */
export async function formatFile(path: string, text: string, options: FormatConfig): Promise<string> {
  const { code, errors } = await format(path, text, options);
  if (errors.length > 0) {
    throw new Error(`tablegen wrote ${path} in a form the formatter cannot read: ${errors[0]!.message}`);
  }
  return code;
}

/** A formatted file that a previous generation wrote from the same source, if it is still as written. */
export type Reuse = (path: string, sourceHash: string) => string | undefined;

export interface Formatter {
  /** The formatter's options (formatterOptions). */
  options: FormatConfig;
  /** What a file becomes depends on the formatter's version as much as on its source. */
  version: string;
}

/** A file as an emitter wrote it; `copied` when it is one of tablegen's own sources, in the layout already. */
export interface EmittedFile {
  path: string;
  text: string;
  copied?: boolean;
}

/**
 * One formatter pass over the emitted tree: every TypeScript, JavaScript, JSON and Markdown file,
 * but those copied as they are from tablegen's own sources, which are in the layout already
 * (test/emit/laid-out.test.ts). Files are taken from `files` as the formatter's threads ask for
 * them, so that an emitter producing them lazily renders the next while the formatter lays out
 * the last. Also the listing of them all (`.tablegen-files`), with the hashes that let the next
 * generation reuse a file whose source has not changed without formatting it again; a file written
 * as it is is listed with one hash, its text's, as source and content.
 */
export async function formatTree(
  files: Iterable<EmittedFile>,
  formatter: Formatter,
  reuse: Reuse = () => undefined,
): Promise<FileTree> {
  const salt = `oxfmt ${formatter.version} ${JSON.stringify(formatter.options)}\n`;
  const written: { path: string; content: string; source: string; contentHash: string }[] = [];
  const pending = files[Symbol.iterator]();
  // The large files (LARGE), laid out one after another on a turn of their own, beside the others.
  let largeTurn: Promise<unknown> = Promise.resolve();
  const large: Promise<void>[] = [];
  const layOut = async (path: string, text: string, source: string) => {
    const content = await formatFile(path, text, formatter.options);
    written.push({ path, content, source, contentHash: textHash(content) });
  };
  const work = async () => {
    for (let next = pending.next(); !next.done; next = pending.next()) {
      const { path, text, copied } = next.value;
      if (copied || !FORMATTED.test(path)) {
        const hash = textHash(text);
        written.push({ path, content: text, source: hash, contentHash: hash });
        continue;
      }
      const source = textHash(salt + text);
      const reused = reuse(path, source);
      if (reused !== undefined) written.push({ path, content: reused, source, contentHash: textHash(reused) });
      else if (text.length < LARGE) await layOut(path, text, source);
      else {
        const laidOut = largeTurn.then(() => layOut(path, text, source));
        largeTurn = laidOut.catch(() => undefined);
        large.push(laidOut);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, work));
  await Promise.all(large);
  const byPath = new Map(written.map((file) => [file.path, file]));
  const tree = fileTree(written.map(({ path, content }) => [path, content] as const));
  const listing = ownedListing(
    [...tree.keys()].map((path) => {
      const { source, contentHash } = byPath.get(path)!;
      return { path, source, content: contentHash };
    }),
  );
  return fileTree([...tree, [OWNED_FILES, listing]]);
}
