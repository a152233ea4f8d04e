import type { Database } from "../manifest/schema.ts";
import type { Model } from "../model/types.ts";
import { render, staticFile } from "../templates.ts";
import { fileTree, type FileTree } from "../tree/file-tree.ts";
import { queryNames, tableNames } from "./names.ts";
import { emitEnvExample, emitPackageJson, emitStoredKinds } from "./project.ts";
import { emitPrismaSchema } from "./prisma-schema.ts";
import { emitQuery } from "./queries.ts";
import { emitReadme } from "./readme.ts";
import { emitPostgresTable } from "./postgres.ts";
import { emitSqliteTable } from "./sqlite.ts";
import { emitTableSchemas } from "./tables.ts";

/** Files copied as they are, by their path in the generated server and in `templates/server/`. */
const SHARED_FILES: Record<string, string> = {
  ".gitignore": "gitignore",
  "tsconfig.json": "tsconfig.json",
  "tsconfig.build.json": "tsconfig.build.json",
  "src/app.ts": "src/app.ts",
  "src/cluster.ts": "src/cluster.ts",
  "src/env.ts": "src/env.ts",
  "src/server.ts": "src/server.ts",
  "src/http/auth.ts": "src/http/auth.ts",
  "src/http/envelope.ts": "src/http/envelope.ts",
  "src/http/errors.ts": "src/http/errors.ts",
  "src/http/formats.ts": "src/http/formats.ts",
  "src/http/ids.ts": "src/http/ids.ts",
  "src/http/methods.ts": "src/http/methods.ts",
  "src/http/validation.ts": "src/http/validation.ts",
};

/** Files that differ by database: the driver, its errors, stored values and Prisma's adapter. */
const DATABASE_FILES: Record<Database, Record<string, string>> = {
  sqlite: {
    "src/constraints.ts": "sqlite/constraints.ts",
    "src/db.ts": "sqlite/db.ts",
    "src/prisma.ts": "sqlite/prisma.ts",
    "src/query.ts": "sqlite/query.ts",
    "src/values.ts": "sqlite/values.ts",
    "src/wal.ts": "sqlite/wal.ts",
  },
  postgresql: {
    "src/constraints.ts": "postgres/constraints.ts",
    "src/db.ts": "postgres/db.ts",
    "src/prisma.ts": "postgres/prisma.ts",
    "src/prisma-adapter.ts": "postgres/prisma-adapter.ts",
    "src/query.ts": "postgres/query.ts",
    "src/values.ts": "postgres/values.ts",
  },
};

export interface EmitOptions {
  /** The manifest's file name, as the generated README names it. */
  manifestName: string;
}

/** The whole generated server for a model, in memory. A pure function of its inputs. */
export function emitServer(model: Model, options: EmitOptions): FileTree {
  const sqlite = model.database === "sqlite";
  const files: [string, string][] = [];
  const add = (path: string, content: string) => files.push([path, content]);

  for (const [path, template] of Object.entries({ ...SHARED_FILES, ...DATABASE_FILES[model.database] })) {
    add(path, staticFile(`server/${template}`));
  }
  add("package.json", emitPackageJson(model));
  add("README.md", emitReadme(model, options.manifestName));
  add(".env.example", emitEnvExample(model));
  add("prisma/schema.prisma", emitPrismaSchema(model));
  add("src/config.ts", render("server/src/config.ts.hbs", { sqlite }));
  add("prisma.config.ts", render("server/prisma.config.ts.hbs", { sqlite }));
  if (sqlite) add("src/columns.ts", emitStoredKinds(model));
  add("src/store.ts", emitStore(model));
  add(
    "src/routes/index.ts",
    render("server/routes-index.ts.hbs", { project: model.project, versions: model.versions }),
  );

  for (const table of model.tables) {
    add(`src/schemas/${table.name}.ts`, emitTableSchemas(table, model));
    add(`src/tables/${table.name}.ts`, sqlite ? emitSqliteTable(table, model) : emitPostgresTable(table, model));
    for (const version of table.versions) {
      const context = { ...tableNames(table.name), version, project: model.project, ...awaiting(sqlite) };
      add(`src/routes/${version}/${table.name}.ts`, render("server/table/routes.ts.hbs", context));
    }
  }
  for (const query of model.queries) add(`src/queries/${query.name}.ts`, emitQuery(query, model));
  for (const version of model.versions) add(`src/routes/${version}/index.ts`, emitVersion(model, version));
  return fileTree(files);
}

/** How route files wait for the table: SQLite's driver is synchronous, PostgreSQL's is not. */
function awaiting(sqlite: boolean) {
  return sqlite ? { await: "", open: "", close: "" } : { await: "await ", open: "(await ", close: ")" };
}

function emitStore(model: Model): string {
  return render("server/store.ts.hbs", {
    imports: [
      ...model.tables.map((table) => `import { ${tableNames(table.name).factory} } from "./tables/${table.name}.js";`),
      ...model.queries.map(
        (query) => `import { ${queryNames(query.name).factory} } from "./queries/${query.name}.js";`,
      ),
    ],
    tables: model.tables.map((table) => `${table.name}: ${tableNames(table.name).factory}(db),`),
    queries: model.queries.map((query) => `${query.name}: ${queryNames(query.name).factory}(db),`),
  });
}

function emitVersion(model: Model, version: string): string {
  const tables = model.tables.filter((table) => table.versions.includes(version));
  const queries = model.queries.filter((query) => query.versions.includes(version));
  return render("server/routes-version.ts.hbs", {
    version,
    imports: [
      ...tables.map((table) => `import { ${tableNames(table.name).routes} } from "./${table.name}.js";`),
      ...queries.map((query) => `import { ${queryNames(query.name).routes} } from "../../queries/${query.name}.js";`),
    ],
    tables: tables.map((table) => ({ table: table.name, routes: tableNames(table.name).routes })),
    queries: queries.map((query) => ({ query: query.name, routes: queryNames(query.name).routes })),
  });
}
