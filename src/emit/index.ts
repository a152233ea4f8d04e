import type { Deprecation, Model } from "../model/types.ts";
import { apiShape } from "../model/api-shape.ts";
import type { ApiShape } from "../runtime/api-keys.ts";
import { versionExpansions } from "../model/expansions.ts";
import { goneMessage, hasVersionedFields, isStoredShape, startOfDay, tableInVersion } from "../model/versions.ts";
import {
  ID_PARSERS,
  tableNames,
  queryNames,
  type IdParser,
  type QueryNames,
  type TableNames,
} from "../targets/tables.ts";
import { targetFor, type Target } from "../targets/index.ts";
import { templatePath } from "../targets/target.ts";
import { fileTree, type FileTree } from "../tree/file-tree.ts";
import { formatTree, serverFormatter, type EmittedFile, type Reuse } from "./format.ts";
import { generatedHeader } from "./header.ts";
import { openApiDocument } from "./openapi.ts";
import { emitPrismaSchema } from "./prisma-schema.ts";
import { packageJson } from "./project.ts";
import { QUERY, queryContext } from "./queries.ts";
import { README, readmeContext } from "./readme.ts";
import { SCHEMAS, schemasContext } from "./schemas.ts";
import { prettierConfig, renderer, sourceOf, type Render, type Sources } from "./templates.ts";

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
  "src/ticks.ts": "src/ticks.ts",
  "src/http/access.ts": "src/http/access.ts",
  "src/http/audit.ts": "src/http/audit.ts",
  "src/http/auth.ts": "src/http/auth.ts",
  "src/http/compilers.ts": "src/http/compilers.ts",
  "src/http/connections.ts": "src/http/connections.ts",
  "src/http/consistency.ts": "src/http/consistency.ts",
  "src/http/docs.ts": "src/http/docs.ts",
  "src/http/envelope.ts": "src/http/envelope.ts",
  "src/http/errors.ts": "src/http/errors.ts",
  "src/http/ids.ts": "src/http/ids.ts",
  "src/http/json.ts": "src/http/json.ts",
  "src/http/list.ts": "src/http/list.ts",
  "src/http/numbers.ts": "src/http/numbers.ts",
  "src/http/stream.ts": "src/http/stream.ts",
  "src/http/expand.ts": "src/http/expand.ts",
  "src/http/batch.ts": "src/http/batch.ts",
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
}

/**
 * The whole generated server for a model, in memory: every file emitted from the model by the
 * templates and the OpenAPI documents, headed, laid out by one formatter pass, and their listing
 * (`.tablegen-files`). A pure function of its inputs.
 */
export function emitServer(model: Model, options: EmitOptions): Promise<FileTree> {
  return formatTree(
    headed(serverFiles(model, options.sources), options.manifestName),
    serverFormatter(options.sources),
    options.reuse,
  );
}

/** Files with the generated-file header on top, as the emitter makes them. */
function* headed(files: Iterable<EmittedFile>, manifestName: string): Generator<EmittedFile> {
  for (const file of files) {
    const header = generatedHeader(file.path, manifestName);
    yield header ? { ...file, text: `${header}\n${file.text}` } : file;
  }
}

/** The folder of the server that is its user's: generation creates it once and never touches it again. */
export const CUSTOM = "src/custom";

/** The templates the emitters render, each with the type of its context. */
const TEMPLATES = {
  customRoutes: templatePath<{ project: string; table: string }>("server/custom/routes.ts.hbs"),
  envExample: templatePath<ProjectContext>("server/env.example.hbs"),
  prismaConfig: templatePath<ProjectContext>("server/prisma.config.ts.hbs"),
  config: templatePath<ProjectContext>("server/config.ts.hbs"),
  store: templatePath<StoreContext>("server/store.ts.hbs"),
  hooks: templatePath<HooksContext>("server/hooks.ts.hbs"),
  routes: templatePath<RoutesContext>("server/routes.ts.hbs"),
  tableRoutes: templatePath<TableRoutesContext>("server/table-routes.ts.hbs"),
  relations: templatePath<RelationsContext>("server/relations.ts.hbs"),
};

/** The relations `expand` embeds and the renamed tables' fields, by version (src/relations.ts). */
interface RelationsContext {
  relations: Record<
    string,
    Record<string, Record<string, { table: string; one: string } | { table: string; many: string }>>
  >;
  renamed: Record<string, Record<string, Record<string, string>>>;
}

/** The context of the templates that name only the project and its database's default URL. */
interface ProjectContext {
  project: string;
  databaseUrl: string;
}

/** A table as the server's store, hooks and routes name it. */
interface ServerTable extends TableNames {
  versioned: boolean;
  idType: "string" | "number";
  idParser: IdParser;
}

interface ServerQuery extends QueryNames {
  query: string;
}

interface StoreContext {
  tables: ServerTable[];
  queries: ServerQuery[];
  /** The id parsers the tables use. */
  idParsers: string[];
}

interface HooksContext {
  tables: ServerTable[];
  tableNames: string[];
}

interface RoutesContext {
  project: string;
  /** The project, its versions and those of each table and query, as `routes.ts` exports them. */
  api: ApiShape;
  tables: ServerTable[];
  queries: ServerQuery[];
  /** Whether a version has a sunset, after which its routes answer 410. */
  sunsets: boolean;
  versions: {
    version: string;
    deprecation: ReturnType<typeof deprecationHeaders>;
    /** The version's batch route: its prefix, and the tables it writes. */
    batch: {
      prefix: string;
      project: string;
      tables: { table: string; schemas: string; versionsName?: string }[];
    };
    /** Each table's and query's routes registered under the version's prefix. */
    registrations: {
      routes: string;
      prefix: string;
      table?: string;
      query?: string;
      /** For a table whose versions differ: its versions' schemas and names, and this one. */
      versionsName?: string;
      version?: string;
      /** For a table: the version whose relations it expands. */
      relatedIn?: string;
    }[];
  }[];
}

interface TableRoutesContext extends TableNames {
  project: string;
  /** A table whose versions differ takes each version's schemas and names when it is registered. */
  versioned?: boolean;
  input: string;
}

/** What generation writes into a server that has no src/custom/ yet: a starter file, commented. */
export function emitCustomStarter(model: Model, sources: Sources): FileTree {
  const render = renderer(sources, model.database);
  const context = { project: model.project, table: model.tables[0]!.name };
  return fileTree([[`${CUSTOM}/routes.ts`, render(TEMPLATES.customRoutes, context)]]);
}

/**
 * Every file of the server as its template writes it, before the formatter lays it out; and the
 * paths of those copied as they are from tablegen's own sources, which are in prettier's layout
 * already (test/emit/laid-out.test.ts) and skip the formatter.
 */
export function emitFiles(model: Model, sources: Sources): { files: FileTree; copied: Set<string> } {
  const files = [...serverFiles(model, sources)];
  return {
    files: fileTree(files.map(({ path, text }) => [path, text])),
    copied: new Set(files.filter((file) => file.copied).map(({ path }) => path)),
  };
}

/**
 * The server's files, made one at a time as they are asked for: the formatter lays out the last
 * while the next is rendered. The OpenAPI documents come first: the largest files, laid out while
 * the others are rendered.
 */
function* serverFiles(model: Model, sources: Sources): Generator<EmittedFile> {
  const target = targetFor(model.database);
  const render = renderer(sources, model.database);
  const copy = (path: string, text: string) => ({ path, text, copied: true });
  const runtime = (name: string) => {
    const text = sources.runtime.get(name);
    if (text === undefined) throw new Error(`tablegen's src/runtime has no ${name}`);
    return text;
  };

  // The documents as JSON.stringify writes them on one line: the formatter breaks what does not fit.
  // First, and each made only when the formatter asks for it: the next is made while the formatter
  // lays out the last, the largest files of a large project.
  for (const version of model.versions) {
    yield { path: `openapi/${version}.json`, text: JSON.stringify(openApiDocument(model, version)) + "\n" };
  }
  for (const [path, template] of Object.entries(SHARED_FILES))
    yield copy(path, sourceOf(sources, `server/${template}`));
  for (const file of target.files) yield copy(`src/${file}`, sourceOf(sources, `server/${model.database}/${file}`));
  for (const [path, name] of Object.entries({ ...RUNTIME_FILES, ...target.runtimeFiles }))
    yield copy(path, runtime(name));
  if (model.tables.some(hasVersionedFields)) {
    yield copy("src/http/versions.ts", sourceOf(sources, "server/src/http/versions.ts"));
  }

  const project = { project: model.project, databaseUrl: target.defaultDatabaseUrl(model.project) };
  yield { path: "package.json", text: packageJson(model, target, sources) };
  yield { path: "README.md", text: render(README, readmeContext(model)) };
  yield { path: ".env.example", text: render(TEMPLATES.envExample, project) };
  yield { path: "prisma/schema.prisma", text: emitPrismaSchema(model) };
  yield { path: "prisma.config.ts", text: render(TEMPLATES.prismaConfig, project) };
  yield { path: "src/config.ts", text: render(TEMPLATES.config, project) };

  const tables: ServerTable[] = model.tables.map((table) => ({
    ...tableNames(table.name),
    versioned: hasVersionedFields(table),
    idType: table.id === "number" ? "number" : "string",
    idParser: ID_PARSERS[table.id],
  }));
  const queries = model.queries.map((query) => ({ query: query.name, ...queryNames(query.name) }));
  const idParsers = [...new Set(tables.map((table) => table.idParser))].sort();
  yield { path: "src/store.ts", text: render(TEMPLATES.store, { tables, queries, idParsers }) };
  yield {
    path: "src/hooks.ts",
    text: render(TEMPLATES.hooks, { tables, tableNames: model.tables.map((table) => table.name) }),
  };
  const registrations = (version: string) => [
    ...tables
      .filter((_, index) => model.tables[index]!.versions.includes(version))
      .map(({ table, routes, versioned, versionsName }) => ({
        routes,
        prefix: `/${model.project}/${table}/${version}`,
        table,
        relatedIn: version,
        ...(versioned && { versionsName, version }),
      })),
    ...queries
      .filter((_, index) => model.queries[index]!.versions.includes(version))
      .map(({ query, routes }) => ({ routes, prefix: `/${model.project}/${version}`, query })),
  ];
  yield { path: "src/relations.ts", text: render(TEMPLATES.relations, relationsContext(model)) };
  yield {
    path: "src/routes.ts",
    text: render(TEMPLATES.routes, {
      project: model.project,
      api: apiShape(model),
      tables,
      queries,
      sunsets: Object.values(model.deprecated).some((deprecation) => deprecation.sunset !== undefined),
      versions: model.versions.map((version) => ({
        version,
        deprecation: deprecationHeaders(version, model.deprecated[version]),
        registrations: registrations(version),
        batch: {
          prefix: `/${model.project}/${version}`,
          project: model.project,
          tables: tables
            .filter((_, index) => model.tables[index]!.versions.includes(version))
            .map(({ table, schemas, versioned, versionsName }) => ({
              table,
              schemas,
              ...(versioned && { versionsName }),
            })),
        },
      })),
    }),
  };

  for (const table of model.tables) {
    yield { path: `src/schemas/${table.name}.ts`, text: render(SCHEMAS, schemasContext(table)) };
    yield { path: `src/tables/${table.name}.ts`, text: tableModule(render, target, table, model) };
    const routes = { ...tableNames(table.name), project: model.project };
    yield {
      path: `src/routes/${table.name}.ts`,
      text: render(
        TEMPLATES.tableRoutes,
        // A table whose versions differ takes each version's schemas and names when it is registered.
        hasVersionedFields(table)
          ? { ...routes, versioned: true, schemas: "schemas", listTable: "listTable", input: "Values" }
          : routes,
      ),
    };
  }
  for (const query of model.queries) {
    yield { path: `src/queries/${query.name}.ts`, text: render(QUERY, queryContext(query, target, model.project)) };
  }
}

/** Each version's relations, by table and name, and the tables it answers in other names. */
function relationsContext(model: Model): RelationsContext {
  const expansionsOf = versionExpansions(model);
  const relations: RelationsContext["relations"] = {};
  const renamed: RelationsContext["renamed"] = {};
  for (const version of model.versions) {
    relations[version] = {};
    renamed[version] = {};
    for (const table of model.tables.filter((candidate) => candidate.versions.includes(version))) {
      const expansions = expansionsOf(table, version);
      if (expansions.length > 0)
        relations[version][table.name] = Object.fromEntries(
          expansions.map(({ name, kind, table: other, field, key }) => [
            name,
            kind === "one" ? { table: other, one: key } : { table: other, many: field },
          ]),
        );
      if (!isStoredShape(table, version)) {
        const fields = tableInVersion(table, version).fields.map((field) => [field.name, field.column]);
        renamed[version][table.name] = Object.fromEntries([["id", "id"], ...fields]);
      }
    }
  }
  return { relations, renamed };
}

/** A table's module, from its database's template. */
function tableModule<Context>(
  render: Render,
  target: Target<Context>,
  ...[table, model]: Parameters<Target["tableContext"]>
) {
  return render(target.tableModule, target.tableContext(table, model));
}
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
