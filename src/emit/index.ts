import type { Deprecation, Model } from "../model/types.ts";
import { apiShape } from "../model/api-shape.ts";
import { goneMessage, hasVersionedFields, startOfDay } from "../model/versions.ts";
import { tableNames, queryNames } from "../targets/tables.ts";
import { targetFor } from "../targets/index.ts";
import { fileTree, type FileTree } from "../tree/file-tree.ts";
import { formatTree, type FormatFiles, type Reuse } from "./format.ts";
import { documentFiles } from "./documents.ts";
import { generatedHeader } from "./header.ts";
import { emitPrismaSchema } from "./prisma-schema.ts";
import { packageJson } from "./project.ts";
import { queryContext } from "./queries.ts";
import { readmeContext } from "./readme.ts";
import { schemasContext } from "./schemas.ts";
import { Call, Code } from "../layout/typescript.ts";
import { prettierConfig, renderer, sourceOf, type Sources } from "./templates.ts";

export { prettierConfig };

export type { Sources };

/** Files every server has as they are, by their path in the server and in `templates/server/`. */
const SHARED_FILES: Record<string, string> = {
  ".gitignore": "gitignore",
  ".prettierrc.json": "prettierrc.json",
  "tsconfig.json": "tsconfig.json",
  "tsconfig.build.json": "tsconfig.build.json",
  "run.js": "run.js",
  "src/app.ts": "src/app.ts",
  "src/cluster.ts": "src/cluster.ts",
  "src/env.ts": "src/env.ts",
  "src/hooked.ts": "src/hooked.ts",
  "src/server.ts": "src/server.ts",
  "src/http/access.ts": "src/http/access.ts",
  "src/http/audit.ts": "src/http/audit.ts",
  "src/http/auth.ts": "src/http/auth.ts",
  "src/http/connections.ts": "src/http/connections.ts",
  "src/http/docs.ts": "src/http/docs.ts",
  "src/http/envelope.ts": "src/http/envelope.ts",
  "src/http/errors.ts": "src/http/errors.ts",
  "src/http/ids.ts": "src/http/ids.ts",
  "src/http/json.ts": "src/http/json.ts",
  "src/http/list.ts": "src/http/list.ts",
  "src/http/numbers.ts": "src/http/numbers.ts",
  "src/http/stream.ts": "src/http/stream.ts",
  "src/http/text.ts": "src/http/text.ts",
  "src/list-sql.ts": "src/list-sql.ts",
  "src/log.ts": "src/log.ts",
  "src/now.ts": "src/now.ts",
  "src/http/methods.ts": "src/http/methods.ts",
  "src/http/validation.ts": "src/http/validation.ts",
};

/** Files of `src/runtime/` every server runs, by their path in the server. */
const RUNTIME_FILES: Record<string, string> = { "src/http/formats.ts": "formats.ts", "src/api-keys.ts": "api-keys.ts" };

export interface EmitOptions {
  /** The manifest's file name, as the generated files name it. */
  manifestName: string;
  sources: Sources;
  /** Formatted files of a previous generation that can be kept as they are (the CLI reads them). */
  reuse?: Reuse;
  /** Who runs prettier: this thread unless the CLI gives its worker threads (src/cli/format-pool.ts). */
  formatFiles?: FormatFiles;
}

/**
 * The whole generated server for a model, in memory: every file emitted from the model by the
 * templates and the OpenAPI documents, headed, in prettier's layout, and their listing
 * (`.tablegen-files`). A pure function of its inputs.
 */
export async function emitServer(model: Model, options: EmitOptions): Promise<FileTree> {
  const { files, laidOut, rendered } = emitFiles(model, options.sources);
  const headed = [...files].map(([path, content]) => {
    const header = generatedHeader(path, options.manifestName);
    return [path, header ? `${header}\n${content}` : content] as const;
  });
  const formatter = {
    config: prettierConfig(options.sources),
    version: options.sources.packageVersions.prettier ?? "",
    formatFiles: options.formatFiles,
  };
  return formatTree(fileTree(headed), formatter, options.reuse, { laidOut, rendered });
}

/** The folder of the server that is its user's: generation creates it once and never touches it again. */
export const CUSTOM = "src/custom";

/** What generation writes into a server that has no src/custom/ yet: a starter file, commented. */
export function emitCustomStarter(model: Model, sources: Sources): FileTree {
  const render = renderer(sources, model.database);
  const context = { project: model.project, table: model.tables[0]!.name };
  return fileTree([[`${CUSTOM}/routes.ts`, render("server/custom/routes.ts.hbs", context)]]);
}

/**
 * Every file of the server as its template writes it; the paths of those copied as they are from
 * tablegen's own sources, which are in prettier's layout already (test/emit/laid-out.test.ts); and
 * the paths of those rendered in prettier's layout as long as their lines fit
 * (test/emit/rendered.test.ts).
 */
export function emitFiles(
  model: Model,
  sources: Sources,
): { files: FileTree; laidOut: Set<string>; rendered: Set<string> } {
  const target = targetFor(model.database);
  const render = renderer(sources, model.database);
  const files: [string, string][] = [];
  const laidOut = new Set<string>();
  const rendered = new Set<string>();
  const add = (path: string, content: string) => {
    files.push([path, content]);
    if (/\.(ts|md)$/.test(path)) rendered.add(path);
  };
  const copy = (path: string, content: string) => {
    files.push([path, content]);
    laidOut.add(path);
  };
  const runtime = (name: string) => {
    const text = sources.runtime.get(name);
    if (text === undefined) throw new Error(`tablegen's src/runtime has no ${name}`);
    return text;
  };

  for (const [path, template] of Object.entries(SHARED_FILES)) copy(path, sourceOf(sources, `server/${template}`));
  for (const file of target.files) copy(`src/${file}`, sourceOf(sources, `server/${model.database}/${file}`));
  for (const [path, name] of Object.entries({ ...RUNTIME_FILES, ...target.runtimeFiles })) copy(path, runtime(name));

  const project = { project: model.project, databaseUrl: target.defaultDatabaseUrl(model.project) };
  for (const [path, template] of Object.entries(target.templates)) {
    add(path, render(`server/${model.database}/${template}`, project));
  }
  add("package.json", packageJson(model, target, sources));
  const { printWidth = 80 } = prettierConfig(sources);
  add("README.md", render("server/README.md.hbs", readmeContext(model, printWidth)));
  add(".env.example", render("server/env.example.hbs", project));
  add("prisma/schema.prisma", emitPrismaSchema(model));
  add("prisma.config.ts", render("server/prisma.config.ts.hbs", project));
  add("src/config.ts", render("server/config.ts.hbs", project));

  const tables = model.tables.map((table) => ({
    ...tableNames(table.name),
    versioned: hasVersionedFields(table),
    idType: table.id === "uuid" ? "string" : "number",
    idParser: table.id === "uuid" ? "uuidId" : "numberId",
  }));
  const queries = model.queries.map((query) => ({ query: query.name, ...queryNames(query.name) }));
  const idParsers = [...new Set(tables.map((table) => table.idParser))].sort();
  add("src/store.ts", render("server/store.ts.hbs", { tables, queries, idParsers }));
  add("src/hooks.ts", render("server/hooks.ts.hbs", { tables, tableNames: model.tables.map((table) => table.name) }));
  add(
    "src/routes.ts",
    render("server/routes.ts.hbs", {
      project: model.project,
      api: apiShape(model),
      tables,
      queries,
      sunsets: Object.values(model.deprecated).some((deprecation) => deprecation.sunset !== undefined),
      versions: model.versions.map((version) => ({
        version,
        deprecation: deprecationHeaders(version, model.deprecated[version]),
        // Each table's and query's routes registered under the version's prefix, as values for tsLine.
        registrations: [
          ...tables
            .filter((_, index) => model.tables[index]!.versions.includes(version))
            .map(({ table, routes, versioned, versionsName }) =>
              register(routes, {
                prefix: `/${model.project}/${table}/${version}`,
                table: new Code(`store.tables.${table}`),
                ...(versioned && { version: new Code(`${versionsName}.${version}`) }),
              }),
            ),
          ...queries
            .filter((_, index) => model.queries[index]!.versions.includes(version))
            .map(({ query, routes }) =>
              register(routes, { prefix: `/${model.project}/${version}`, query: new Code(`store.queries.${query}`) }),
            ),
        ],
      })),
    }),
  );

  if (model.tables.some(hasVersionedFields))
    copy("src/http/versions.ts", sourceOf(sources, "server/src/http/versions.ts"));
  for (const table of model.tables) {
    add(`src/schemas/${table.name}.ts`, render("server/schemas.ts.hbs", schemasContext(table)));
    add(
      `src/tables/${table.name}.ts`,
      render(`server/${model.database}/table.ts.hbs`, target.tableContext(table, model)),
    );
    const routes = { ...tableNames(table.name), project: model.project };
    add(
      `src/routes/${table.name}.ts`,
      render(
        "server/table-routes.ts.hbs",
        // A table whose versions differ takes each version's schemas and names when it is registered.
        hasVersionedFields(table)
          ? { ...routes, versioned: true, schemas: "schemas", listTable: "listTable", input: "Values" }
          : routes,
      ),
    );
  }
  for (const query of model.queries) {
    add(`src/queries/${query.name}.ts`, render("server/query.ts.hbs", queryContext(query, target, model.project)));
  }
  for (const { path, text, laidOut: written } of documentFiles(model, printWidth)) {
    files.push([path, text]);
    if (written) rendered.add(path);
  }
  return { files: fileTree(files), laidOut, rendered };
}

/** `app.register(<routes>, <options>)`, as a value for tsLine. */
const register = (routes: string, options: object) => new Call("app.register", [new Code(routes), options]);

/**
 * The headers of a deprecated version's answers: `Deprecation` (RFC 9745), the date it was
 * deprecated as a structured date, `@<seconds>` (`@0` when the manifest gives none: deprecated since
 * before any answer), and `Sunset` (RFC 8594), the date it ends as an HTTP date; and from that
 * instant (in milliseconds since the epoch) on, the 410 its routes answer.
 */
function deprecationHeaders(version: string, deprecation: Deprecation | undefined) {
  if (!deprecation) return undefined;
  return {
    since: `@${deprecation.since === undefined ? 0 : startOfDay(deprecation.since).getTime() / 1000}`,
    ...(deprecation.sunset !== undefined && {
      sunset: startOfDay(deprecation.sunset).toUTCString(),
      sunsetDate: deprecation.sunset,
      sunsetTime: startOfDay(deprecation.sunset).getTime(),
      gone: goneMessage(version, deprecation.sunset),
    }),
  };
}
