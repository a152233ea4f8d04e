import Handlebars from "handlebars";
import type { Options } from "prettier";
import type { Database } from "../manifest/schema.ts";
import { markdownTable } from "../layout/markdown.ts";
import { Call, Code, tsImport, tsLine } from "../layout/typescript.ts";

/**
 * What the emitters are made from, read by the CLI and handed in as data: the emitters themselves
 * touch no file.
 */
export interface Sources {
  /** Every file of tablegen's `templates/` folder, by its path there (`server/app.ts`, `init/gitignore.hbs`). */
  templates: ReadonlyMap<string, string>;
  /** Every file of `src/runtime/`, by name: code that tablegen runs and ships into servers as it is. */
  runtime: ReadonlyMap<string, string>;
  /** Versions of the npm packages tablegen is developed and tested against (its package.json). */
  packageVersions: Readonly<Record<string, string>>;
}

export type Render = (template: string, context: object) => string;

const renderers = new WeakMap<Sources, Map<string, Render>>();

/**
 * A Handlebars renderer over the sources: the shared partials of `server/partials/`, and those of
 * the database's folder (`server/<database>/partials/`), which supply what differs by database.
 */
export function renderer(sources: Sources, database?: Database): Render {
  let cache = renderers.get(sources);
  if (!cache) renderers.set(sources, (cache = new Map()));
  const key = database ?? "";
  const existing = cache.get(key);
  if (existing) return existing;

  const handlebars = Handlebars.create();
  const { printWidth = 80 } = prettierConfig(sources);
  /** A helper's arguments, without the options Handlebars passes last, and without empty ones. */
  const args = (values: unknown[]) =>
    values
      .slice(0, -1)
      .flat()
      .filter((value) => value !== "" && value !== undefined);
  handlebars.registerHelper({
    // TypeScript in prettier's layout (src/layout/typescript.ts).
    tsLine: (indent: string, prefix: string, value: unknown, suffix: unknown) =>
      tsLine(indent, prefix, value, typeof suffix === "string" ? suffix : "", printWidth),
    tsImport: (from: string, ...names: unknown[]) => tsImport(args(names) as string[], from, printWidth),
    tsImportType: (from: string, ...names: unknown[]) => tsImport(args(names) as string[], from, printWidth, true),
    // The block when its first line fits the print width, else its {{else}}: prettier's choice
    // between a call with its last argument hugged and its arguments one a line.
    ifFits(this: unknown, options: Handlebars.HelperOptions) {
      const block = options.fn(this);
      const end = block.indexOf("\n");
      return (end < 0 ? block.length : end) <= printWidth ? block : options.inverse(this);
    },
    // A Markdown table, its columns padded to one width as prettier aligns them.
    mdTable(this: unknown, options: Handlebars.HelperOptions) {
      return markdownTable(options.fn(this));
    },
    // Values for tsLine: code as it is, and a call.
    code: (text: string) => new Code(text),
    call: (callee: string, ...values: unknown[]) => new Call(callee, values.slice(0, -1)),
    json: (value: unknown) => JSON.stringify(value),
    join: (items: unknown[], separator: unknown) => items.join(typeof separator === "string" ? separator : ", "),
    concat: (...parts: unknown[]) => parts.slice(0, -1).join(""),
    eq: (a: unknown, b: unknown) => a === b,
  });
  const partialFolders = ["server/partials/", ...(database ? [`server/${database}/partials/`] : [])];
  for (const [path, text] of sources.templates) {
    const folder = partialFolders.find((prefix) => path.startsWith(prefix));
    if (folder) handlebars.registerPartial(path.slice(folder.length, -".hbs".length), text);
  }
  const compiled = new Map<string, HandlebarsTemplateDelegate>();
  const render: Render = (template, context) => {
    let compiledTemplate = compiled.get(template);
    if (!compiledTemplate) {
      compiledTemplate = handlebars.compile(sourceOf(sources, template), {
        noEscape: true,
        strict: true,
        preventIndent: true,
      });
      compiled.set(template, compiledTemplate);
    }
    return compiledTemplate(context);
  };
  cache.set(key, render);
  return render;
}

/** A template file's text. */
export function sourceOf(sources: Sources, path: string): string {
  const text = sources.templates.get(path);
  if (text === undefined) throw new Error(`tablegen's templates have no ${path}`);
  return text;
}

/** The prettier configuration generated servers carry, whose layout their files are in. */
export function prettierConfig(sources: Sources): Options {
  return JSON.parse(sourceOf(sources, "server/prettierrc.json")) as Options;
}
