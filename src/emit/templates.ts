import Handlebars from "handlebars";
import type { Database } from "../manifest/schema.ts";
import type { TemplatePath } from "../targets/target.ts";
import { textHash } from "../tree/file-tree.ts";
import { tsLiteral } from "./typescript.ts";

/**
 * What the emitters are made from, read by the CLI and handed in as data: the emitters themselves
 * touch no file.
 */
export interface Sources {
  /** Every file of tablegen's `templates/` folder, by its path there (`server/app.ts`, `init/gitignore.hbs`). */
  templates: ReadonlyMap<string, string>;
  /**
   * The Handlebars templates (`.hbs`) compiled ahead of time by `npm run build`
   * (precompileTemplates), used while they are those of `templates`: compiling them takes a
   * generation some 100 ms.
   */
  precompiled?: PrecompiledTemplates;
  /** Every file of `src/runtime/`, by name: code that tablegen runs and ships into servers as it is. */
  runtime: ReadonlyMap<string, string>;
  /** Versions of the npm packages tablegen is developed and tested against (its package.json). */
  packageVersions: Readonly<Record<string, string>>;
}

/** Handlebars' code for each template, and what it was made from. */
export interface PrecompiledTemplates {
  /** The Handlebars version that compiled them. */
  handlebars: string;
  /** Each `.hbs` template's code (Handlebars.precompile), by path, with the hash of what it was compiled from. */
  templates: Record<string, { hash: string; spec: string }>;
}

/**
 * How every template is compiled: plain text out (no HTML escaping), every name it uses required.
 * Handlebars adds to the options it is given: each call gets a copy.
 */
const COMPILE_OPTIONS = { noEscape: true, strict: true, preventIndent: true } as const;
const compileOptions = () => ({ ...COMPILE_OPTIONS });

/** What a template's code is made from: its text, and the options it is compiled with. */
const compiledFrom = (text: string) => textHash(`${JSON.stringify(COMPILE_OPTIONS)}\n${text}`);

/** Every `.hbs` template compiled to Handlebars' code, as `npm run build` writes it (dist/templates.json). */
export function precompileTemplates(templates: ReadonlyMap<string, string>): PrecompiledTemplates {
  const compiled = [...templates]
    .filter(([path]) => path.endsWith(".hbs"))
    .map(([path, text]) => [path, { hash: compiledFrom(text), spec: Handlebars.precompile(text, compileOptions()) }]);
  return { handlebars: Handlebars.VERSION, templates: Object.fromEntries(compiled) };
}

/**
 * The precompiled templates if they are the templates' texts, every one (a clone's template edited
 * since the last build is compiled from its text, and so are all the others with it).
 */
function currentPrecompiled(sources: Sources): PrecompiledTemplates["templates"] | undefined {
  const { precompiled, templates } = sources;
  if (precompiled?.handlebars !== Handlebars.VERSION) return undefined;
  for (const [path, text] of templates) {
    if (path.endsWith(".hbs") && precompiled.templates[path]?.hash !== compiledFrom(text)) return undefined;
  }
  return precompiled.templates;
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
  const precompiled = currentPrecompiled(sources);
  const compile = (path: string): HandlebarsTemplateDelegate => {
    // A current build has code for every .hbs template: any other path is compiled (or refused) from its text.
    const code = precompiled?.[path];
    if (code === undefined) return handlebars.compile(sourceOf(sources, path), compileOptions());
    // The code Handlebars.precompile wrote at build time, made a function as Handlebars.compile makes its own.
    return handlebars.template(new Function(`return ${code.spec}`)() as TemplateSpecification);
  };
  const partialFolders = ["server/partials/", ...(database ? [`server/${database}/partials/`] : [])];
  for (const [path, text] of sources.templates) {
    const folder = partialFolders.find((prefix) => path.startsWith(prefix));
    // Precompiled partials are registered compiled: Handlebars would compile a text partial called from
    // a precompiled template without the options above.
    if (folder)
      handlebars.registerPartial(path.slice(folder.length, -".hbs".length), precompiled ? compile(path) : text);
  }
  const compiled = new Map<string, HandlebarsTemplateDelegate>();
  const render: Render = (template, context) => {
    let compiledTemplate = compiled.get(template);
    if (!compiledTemplate) compiled.set(template, (compiledTemplate = compile(template)));
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
