import type { Database } from "../manifest/schema.ts";
import type { Field, FieldDefault, Model, Query, Table, ValueKind } from "../model/types.ts";
import type { Rename } from "../migrate/plan.ts";

declare const contextType: unique symbol;

/**
 * A template's path in tablegen's `templates/` folder, typed with the context it is rendered with:
 * the renderer (src/emit/templates.ts) takes only that context with it, so a property renamed where
 * a context is built fails the type check.
 */
export type TemplatePath<Context> = string & { readonly [contextType]: Context };

/** The path of a template rendered with a `Context`. */
export const templatePath = <Context>(path: string) => path as TemplatePath<Context>;

/**
 * The modules every database's folder provides, which the shared code imports: the driver and its
 * pool or connection, constraint errors, the counts of keys with a rate limit, list statements,
 * the Prisma Client, custom queries, the transactions of writes with hooks, stored values.
 */
export const DATABASE_MODULES = [
  "constraints.ts",
  "db.ts",
  "health.ts",
  "limits.ts",
  "list.ts",
  "prisma.ts",
  "query.ts",
  "transaction.ts",
  "values.ts",
] as const;

/**
 * A custom query's output column as the database describes it when the query is prepared: its
 * name, and the table column it is taken straight from (SQLite) or its type's OID (PostgreSQL).
 */
export interface DescribedColumn {
  name: string;
  table?: string | null;
  column?: string | null;
  typeId?: number;
}

/** How Prisma's migrations write a database's tables: `prisma migrate diff --from-empty`'s SQL. */
export interface TableSql {
  /** The id column's definition. */
  id(table: Table): string;
  /** A field's column type. */
  type(field: Field): string;
  /** A default as Prisma writes it, or undefined when it might write it otherwise. */
  defaultSql(field: Field): string | undefined;
  /** A CREATE TABLE's body, from its column definitions and foreign keys. */
  body(table: Table, columns: string[], constraints: string[]): string;
  /** A constraint's name: Prisma's `<base>_<suffix>`, cut to the database's longest name. */
  name(base: string, suffix: string): string;
  /** Whether foreign keys are added after every table and index (else inside CREATE TABLE). */
  readonly foreignKeysApart: boolean;
  /** What stands between a foreign key's table and its column (`REFERENCES "users" ("id")`). */
  readonly referenceSpace: string;
}

/**
 * Everything that differs between the databases a generated server can run on, in one object per
 * database (as a SQL dialect): the files and packages of its servers, how their statements are
 * written and bound, how values are stored, and how migrations are wrapped and renames written.
 * Its templates live in `templates/server/<database>/` (files copied as they are, a table module
 * template, and partials the shared templates call). Adding a database means adding a target.
 */
export interface Target<TableModuleContext = unknown> {
  readonly database: Database;
  /** Prisma's datasource provider. */
  readonly provider: string;
  /** Files of `templates/server/<database>/` copied as they are into the server's `src/`. */
  readonly files: readonly string[];
  /** Server path → file of `src/runtime/` that the server runs too. */
  readonly runtimeFiles: Readonly<Record<string, string>>;
  /** npm packages of the server: what it runs on and what it is developed with. */
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  /** `npm run migrate` of the server. */
  readonly migrateScript: string;
  /** What the database is called in messages. */
  readonly label: string;
  /** How `tablegen init` offers it. */
  readonly choice: string;
  /** The DATABASE_URL a server uses when none is set, if it has one. */
  readonly implicitDatabaseUrl: string | undefined;
  /** The DATABASE_URL a new project starts with. */
  defaultDatabaseUrl(project: string): string;
  /** Why a DATABASE_URL is not one of this database's (the studio's Settings refuse it), if it is not. */
  urlProblem(url: string): string | undefined;
  /** A URL of the provider that Prisma accepts for a schema-to-schema diff (no database is opened). */
  readonly placeholderUrl: string;

  /** Prisma attributes after a field's own (native column types). */
  prismaAttributes(field: Field): string[];
  /**
   * The argument of a DATETIME field's `@default(...)` in the Prisma schema: what a migration fills
   * existing rows with and what an insert that leaves the column out stores, in the same stored form
   * as the server's own writes.
   */
  prismaDateTimeDefault(fallback: FieldDefault): string;
  /** A field's default as an SQL expression of the value stored (what a migration fills rows with). */
  defaultSql(field: Field): string;
  /** Prisma attributes of a uuid id after `@id @default(uuid())`. */
  readonly uuidIdAttributes: string[];

  /**
   * How Prisma's migrations write the database's tables, which the first migration reproduces
   * (src/emit/first-migration.ts) and the scratch databases custom queries are checked in are made with.
   */
  readonly tableSql: TableSql;

  /** The database's table module template (`templates/server/<database>/table.ts.hbs`), and its context. */
  readonly tableModule: TemplatePath<TableModuleContext>;
  tableContext(table: Table, model: Model): TableModuleContext;
  /** A custom query's SQL with its parameters as the driver binds them. */
  querySql(query: Query): string;
  /**
   * The kind of a custom query's output column, from what the database says of it when the query
   * is prepared (src/cli/database.ts), if it has one of the API's.
   */
  columnKind(model: Model, column: DescribedColumn): ValueKind | undefined;
  /**
   * The database whose types a column without one here takes (SQLite's computed columns: the
   * type PostgreSQL gives the same query over the same tables, when it understands it too).
   */
  readonly untypedColumnsFrom?: Database;

  /**
   * The statement a migration ends its transaction with: its row of Prisma's history marked
   * finished (Prisma marks it again once the script returns). A migration whose process was killed
   * is then left either finished or rolled back with its row unfinished, never applied but
   * unrecorded, so that the next `migrate` can tell which (src/cli/database.ts).
   */
  recordFinished(name: string): string;
  /** A migration's script around the SQL Prisma computed: all-or-nothing. */
  migrationScript(sql: string): string;
  /**
   * Prisma's diff from the schema `from` (none for the first migration) to `to`, as this database
   * should run it (SQLite: columns added in place where Prisma would rebuild the table for them).
   */
  diffSql(sql: string, from: string | undefined, to: string): string;
  /** Statements that rename tables and fields (and what is named after them) in place. */
  renameSql(renames: Rename[], renamedPrevious: Model): string;
}
