import Handlebars from "handlebars";
import type { Database } from "../manifest/schema.ts";
import type { TemplatePath } from "../targets/target.ts";
import { tsLiteral } from "./typescript.ts";

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

/** Renders a template with the context its path is typed with (TemplatePath). */
export type Render = <Context>(template: TemplatePath<Context>, context: NoInfer<Context>) => string;

const renderers = new WeakMap<Sources, Map<string, Render>>();

/**
 * A Handlebars renderer over the sources: the shared partials of `server/partials/`, and those of
 * the database's folder (`server/<database>/partials/`), which supply what differs by database.
 * Templates write plain code; its layout is the formatter's (src/emit/format.ts).
 */
export function renderer(sources: Sources, database?: Database): Render {
  let cache = renderers.get(sources);
  if (!cache) renderers.set(sources, (cache = new Map()));
  const key = database ?? "";
  const existing = cache.get(key);
  if (existing) return existing;

  const handlebars = Handlebars.create();
  handlebars.registerHelper({
    // A value as a TypeScript literal (src/emit/typescript.ts), and as JSON.
    ts: (value: unknown) => tsLiteral(value),
    json: (value: unknown) => JSON.stringify(value),
    join: (items: unknown[], separator: unknown) => items.join(typeof separator === "string" ? separator : ", "),
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

/** The prettier configuration generated servers carry (`.prettierrc.json`), whose layout their files are in. */
export function prettierConfig(sources: Sources): Record<string, unknown> {
  return JSON.parse(sourceOf(sources, "server/prettierrc.json")) as Record<string, unknown>;
}
