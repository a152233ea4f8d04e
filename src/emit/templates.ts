import Handlebars from "handlebars";
import type { Database } from "../manifest/schema.ts";

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
  handlebars.registerHelper({
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
