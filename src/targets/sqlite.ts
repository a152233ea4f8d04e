import type { Field, Model, Table } from "../model/types.ts";
import type { Rename } from "../migrate/plan.ts";
import { prismaModels } from "../migrate/schema-updates.ts";
import { renamedIndexes } from "./renames.ts";
import { columnKind } from "../model/build.ts";
import { literal, plainDefault, quote, recordFinishedSql, tableLines } from "./sql.ts";
import { TS_TYPES, defaultDateTime, returnedFields, tableContext, type Storage, type TableContext } from "./tables.ts";
import { DATABASE_MODULES, templatePath, type Target } from "./target.ts";

/** Functions of the server's values.ts that read a stored value back into the API's. */
const READERS: Partial<Record<Field["kind"], string>> = { boolean: "apiBoolean", datetime: "apiDateTime" };

/** How SQLite stores a date-time: Prisma's ISO text, whole seconds, `+00:00` (values.ts writes the same). */
const STORED_DATETIME = "%Y-%m-%dT%H:%M:%S.000+00:00";

/** SQLite keeps booleans as 0/1 and date-times as Prisma's ISO text, and binds named parameters. */
const storage: Storage = {
  param: (name) => `@${name}`,
  single: "?",
  keepUnlessSet: (column, flag, value) => `iif(${flag}, ${value}, ${column})`,
  // One parameter, a JSON array of the ids: one prepared statement for any number of them.
  inIds: (column) => `${column} IN (SELECT "value" FROM json_each(?))`,
  converter: (field) => ({ boolean: "storedBoolean", datetime: "storedDateTime" })[field.kind as string],
  storedDefault(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return "storedNow()";
    if (field.kind === "boolean") return String(Number(fallback.value));
    if (field.kind === "datetime") return JSON.stringify(storedDateTime(fallback.value));
    return JSON.stringify(fallback.value);
  },
};

/** The context of `templates/server/sqlite/table.ts.hbs`. */
export interface SqliteTableContext extends TableContext {
  /**
   * A row's fields as SQLite holds them, each with its column's place in the row (as the statements
   * return them: `returnedFields` in tables.ts) and the values.ts function that reads it back, if any.
   */
  rowFields: { name: string; column: number; type: string; required: boolean; reader: string | undefined }[];
}

/** A date-time literal as SQLite stores it. */
const storedDateTime = (value: string | number | boolean) => `${defaultDateTime(value)}.000+00:00`;

export const sqlite: Target<SqliteTableContext> = {
  database: "sqlite",
  provider: "sqlite",
  // wal.ts: `npm run migrate` switches the database file to WAL mode once.
  files: [...DATABASE_MODULES, "wal.ts"],
  runtimeFiles: { "src/prisma-adapter.ts": "sqlite-prisma-adapter.ts" },
  dependencies: ["@prisma/adapter-better-sqlite3", "better-sqlite3"],
  devDependencies: ["@types/better-sqlite3"],
  migrateScript: "prisma migrate deploy && node run.js wal",
  label: "SQLite",
  choice: "SQLite (a file, nothing to install)",
  implicitDatabaseUrl: "file:./data.db",
  urlProblem: (url) =>
    url.startsWith("file:") ? undefined : 'DATABASE_URL of a SQLite project is a file: URL, such as "file:./data.db"',
  defaultDatabaseUrl: () => "file:./data.db",
  placeholderUrl: "file:./tablegen-diff.db",

  prismaAttributes: () => [],
  // Prisma's own now() and date-time literals become CURRENT_TIMESTAMP ('2024-01-31 12:00:00') and
  // '2024-01-31 12:00:00 +00:00' in SQLite: text that compares differently from what the server
  // stores. The column's default is written out in the server's stored form instead.
  prismaDateTimeDefault: (fallback) =>
    fallback.kind === "now"
      ? `dbgenerated("(strftime('${STORED_DATETIME}', 'now'))")`
      : `dbgenerated("'${storedDateTime(fallback.value)}'")`,
  uuidIdAttributes: [],
  defaultSql(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return `strftime('${STORED_DATETIME}', 'now')`;
    if (field.kind === "datetime") return literal(storedDateTime(fallback.value));
    if (typeof fallback.value === "boolean") return String(Number(fallback.value));
    return typeof fallback.value === "string" ? literal(fallback.value) : String(fallback.value);
  },

  tableModule: templatePath<SqliteTableContext>("server/sqlite/table.ts.hbs"),
  tableContext(table: Table, model: Model) {
    const converted = table.fields.filter((field) => READERS[field.kind] !== undefined);
    const context = tableContext(table, model, storage);
    const places = new Map(returnedFields(table).map(({ name }, place) => [name, place]));
    return {
      ...context,
      rowFields: table.fields.map((field) => ({
        name: field.name,
        column: places.get(field.name)!,
        type: field.kind === "boolean" ? "number" : TS_TYPES[field.kind],
        required: field.required,
        reader: READERS[field.kind],
      })),
      valueHelpers: [...new Set([...context.valueHelpers, ...converted.map((field) => READERS[field.kind]!)])].sort(),
    };
  },

  tableSql: {
    id: (table) =>
      table.id === "uuid" ? `"id" TEXT NOT NULL PRIMARY KEY` : `"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`,
    type: (field) =>
      ({
        integer: "INTEGER",
        // Refused by validation on SQLite (bigint ids are PostgreSQL's); named for completeness.
        bigint: "INTEGER",
        float: "REAL",
        text: "TEXT",
        uuid: "TEXT",
        boolean: "BOOLEAN",
        datetime: "DATETIME",
      })[field.kind],
    defaultSql(field) {
      const fallback = field.default!;
      // The schema's dbgenerated(...) text (prismaDateTimeDefault), as the server stores date-times.
      if (fallback.kind === "now") return `(strftime('${STORED_DATETIME}', 'now'))`;
      if (field.kind === "datetime") return `'${storedDateTime(fallback.value)}'`;
      return plainDefault(field);
    },
    body: (_table, columns, constraints) => tableLines([...columns, ...constraints]),
    name: (base, suffix) => `${base}_${suffix}`,
    foreignKeysApart: false,
    referenceSpace: " ",
  },

  querySql: (query) => query.sql,
  // SQLite names the table column an output column is taken from; a computed one has no type here.
  columnKind: (model, { table, column }) => (table && column ? columnKind(model, table, column) : undefined),
  untypedColumnsFrom: "postgresql",

  recordFinished: (name) => recordFinishedSql(name, "strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')"),
  migrationScript: wrapMigration,
  diffSql: addColumnsInPlace,
  renameSql,
};

/**
 * Makes a SQLite migration all-or-nothing. Prisma runs the script in one go without a transaction,
 * and its table rebuilds switch foreign keys off, which SQLite ignores inside a transaction; so
 * foreign keys go off first, the statements run in a transaction, and a final check fails the
 * transaction (and so undoes it) if any row is left referring to nothing.
 */
function wrapMigration(sql: string): string {
  const body = sql
    .split("\n")
    .filter((line) => !/^PRAGMA (defer_)?foreign_keys=(ON|OFF);$/.test(line.trim()))
    .map(addColumnToRows)
    .join("\n")
    .trim();
  return [
    "PRAGMA foreign_keys=OFF;",
    "BEGIN IMMEDIATE;",
    "",
    body,
    "",
    "-- Every reference must still point at a row, or the CHECK fails and nothing above is kept.",
    "CREATE TEMP TABLE _tablegen_foreign_key_check (violations INTEGER CHECK (violations = 0));",
    "INSERT INTO _tablegen_foreign_key_check SELECT count(*) FROM pragma_foreign_key_check;",
    "DROP TABLE _tablegen_foreign_key_check;",
    "COMMIT;",
    "PRAGMA foreign_keys=ON;",
    "",
  ].join("\n");
}

/** Prisma's statement adding a column whose default is an expression (`default: now`). */
const ADD_COLUMN_WITH_EXPRESSION = /^ALTER TABLE ("(?:[^"]|"")+") ADD COLUMN ("(?:[^"]|"")+") .*? DEFAULT (\(.+\));$/;

/**
 * SQLite adds a column whose default is an expression (`strftime(...)` of `default: now`) to an
 * empty table only ("Cannot add a column with non-constant default"). So the rows are set aside in
 * a temporary table, the column is added with its default, and the rows are put back, the new
 * column last, with the default's value: the stored form of the API's own writes, and the column
 * keeps its default for later inserts (Prisma Client's). Foreign keys are off, so nothing cascades.
 */
function addColumnToRows(line: string): string {
  const match = ADD_COLUMN_WITH_EXPRESSION.exec(line.trim());
  if (!match) return line;
  const [, table, , expression] = match;
  const aside = quote("_tablegen_rows");
  return [
    "-- SQLite adds a column with an expression as its default to an empty table only: the rows are set aside and put back.",
    `CREATE TEMP TABLE ${aside} AS SELECT * FROM ${table};`,
    `DELETE FROM ${table};`,
    line.trim(),
    `INSERT INTO ${table} SELECT *, ${expression} FROM ${aside};`,
    `DROP TABLE ${aside};`,
  ].join("\n");
}

/**
 * One table's rebuild in Prisma's diff: a new table, every row copied into it, the old one dropped,
 * the new one renamed, then the table's indexes made again.
 */
const REBUILD =
  /^CREATE TABLE "new_(\w+)" \(\n([\s\S]*?)\n\);\nINSERT INTO "new_\1" \(([^)]*)\) SELECT [^\n]* FROM "\1";\nDROP TABLE "\1";\nALTER TABLE "new_\1" RENAME TO "\1";\n((?:CREATE (?:UNIQUE )?INDEX "[^"]+" ON "\1"[^\n]*;\n)*)/gm;

/**
 * Prisma's diff with the table rebuilds that only add columns turned into `ALTER TABLE ... ADD COLUMN`.
 * Prisma rebuilds a SQLite table to add a required column (`NOT NULL DEFAULT 0`: a required field
 * with a default), copying every row and rewriting the table and its indexes, which takes time and
 * disk in proportion to the rows; SQLite adds such a column in place, by a change of the schema
 * alone, and existing rows read the default. A rebuild becomes those statements only when the
 * table's columns before (`from`, the Prisma schema diffed from) are the first of its columns after
 * (`to`), unchanged, with the same indexes and references, and each added column is one SQLite can
 * add (no key, no uniqueness, no reference, a constant default, and one if it is NOT NULL): the
 * table then ends as the rebuild leaves it, with the same columns in the same order.
 */
function addColumnsInPlace(sql: string, from: string | undefined, to: string): string {
  if (from === undefined || !sql.includes("-- RedefineTables")) return sql;
  const [before, after] = [prismaModels(from), prismaModels(to)];
  const rewritten = sql.replace(REBUILD, (rebuild, table: string, body: string, copied: string) => {
    const [was, is] = [before.get(table), after.get(table)];
    if (!was || !is || was.indexes !== is.indexes || was.relations !== is.relations) return rebuild;
    const names = [...is.fields.keys()];
    const kept = [...was.fields.keys()];
    if (kept.some((name, index) => names[index] !== name || was.fields.get(name) !== is.fields.get(name)))
      return rebuild;
    const added = names.slice(kept.length);
    // A unique column's index comes after the rebuild, with those made again: it must stay a rebuild.
    if (added.some((name) => /(^| )@(id|unique)\b/.test(is.fields.get(name)!))) return rebuild;
    const columns = body.split("\n").map((line) => line.trim().replace(/,$/, ""));
    const definitions = columns.filter((line) => line.startsWith('"'));
    const copiedNames = copied.split(", ").map((name) => name.replace(/^"|"$/g, ""));
    if (
      added.length === 0 ||
      definitions.length !== names.length ||
      definitions.some((definition, index) => !definition.startsWith(`${quote(names[index]!)} `)) ||
      copiedNames.length !== kept.length ||
      copiedNames.some((name) => !kept.includes(name))
    )
      return rebuild;
    const additions = definitions.slice(kept.length);
    if (!additions.every(addableInPlace)) return rebuild;
    return [
      `-- Columns added in place (tablegen): SQLite adds them to "${table}" without copying a row.`,
      ...additions.map((definition) => `ALTER TABLE ${quote(table)} ADD COLUMN ${definition};`),
      "",
    ].join("\n");
  });
  if (rewritten === sql) return sql;
  // No table left to rebuild: Prisma's heading and its foreign-key pragmas go too.
  return /^CREATE TABLE "new_/m.test(rewritten)
    ? rewritten
    : rewritten
        .replace(/^-- RedefineTables\n(PRAGMA (defer_)?foreign_keys=(ON|OFF);\n)*/m, "")
        .replace(/^(PRAGMA (defer_)?foreign_keys=(ON|OFF);\n?)+/gm, "");
}

/**
 * Whether SQLite's `ALTER TABLE ... ADD COLUMN` takes a column definition: no key or uniqueness, no
 * reference, no default that is an expression (or the current time), and a default if NOT NULL.
 */
function addableInPlace(definition: string): boolean {
  // Words inside a text default ('unique') are the value's, not the definition's.
  const upper = definition.replace(/'(?:[^']|'')*'/g, "''").toUpperCase();
  if (/\b(PRIMARY KEY|UNIQUE|REFERENCES|GENERATED|CHECK|COLLATE)\b|\bDEFAULT\s*\(|\bCURRENT_/.test(upper)) return false;
  return !/\bNOT NULL\b/.test(upper) || (/\bDEFAULT\b/.test(upper) && !/\bDEFAULT\s+NULL\b/.test(upper));
}

const uniqueIndex = (table: string, column: string) => `${table}_${column}_key`;

/**
 * SQLite statements for renames. Columns and tables keep their rows; unique indexes, which Prisma
 * names after table and column, are recreated under their new names.
 */
function renameSql(renames: Rename[], renamedPrevious: Model): string {
  if (renames.length === 0) return "";
  const lines = ["-- Renames (tablegen: renamedFrom keeps the data)"];
  const tableRenames = renames.filter((rename) => rename.kind === "table");
  for (const rename of tableRenames) lines.push(`ALTER TABLE ${quote(rename.from)} RENAME TO ${quote(rename.to)};`);
  for (const rename of renames) {
    if (rename.kind === "field")
      lines.push(`ALTER TABLE ${quote(rename.table)} RENAME COLUMN ${quote(rename.from)} TO ${quote(rename.to)};`);
  }
  for (const table of renamedPrevious.tables) {
    const oldTable = tableRenames.find((rename) => rename.to === table.name)?.from ?? table.name;
    for (const field of table.fields.filter((candidate) => candidate.unique)) {
      const fieldRename = renames.find(
        (rename) => rename.kind === "field" && rename.table === table.name && rename.to === field.name,
      );
      const before = uniqueIndex(oldTable, fieldRename?.from ?? field.name);
      const after = uniqueIndex(table.name, field.name);
      if (before === after) continue;
      lines.push(
        `DROP INDEX ${quote(before)};`,
        `CREATE UNIQUE INDEX ${quote(after)} ON ${quote(table.name)}(${quote(field.name)});`,
      );
    }
  }
  for (const { table, fields, from, to } of renamedIndexes(renames, renamedPrevious)) {
    lines.push(
      `DROP INDEX ${quote(from)};`,
      `CREATE INDEX ${quote(to)} ON ${quote(table)}(${fields.map(quote).join(", ")});`,
    );
  }
  return lines.join("\n") + "\n";
}
