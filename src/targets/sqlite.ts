import type { Field, Model, Table } from "../model/types.ts";
import type { Rename } from "../migrate/plan.ts";
import { renamedIndexes } from "./renames.ts";
import { literal, quote, recordFinishedSql, scratchTables } from "./sql.ts";
import { TS_TYPES, defaultDateTime, tableContext, type Storage } from "./tables.ts";
import { DATABASE_MODULES, type Target } from "./target.ts";

/** Functions of the server's values.ts that read a stored value back into the API's. */
const READERS: Partial<Record<Field["kind"], string>> = { boolean: "apiBoolean", datetime: "apiDateTime" };

/** How SQLite stores a date-time: Prisma's ISO text, whole seconds, `+00:00` (values.ts writes the same). */
const STORED_DATETIME = "%Y-%m-%dT%H:%M:%S.000+00:00";

/** SQLite keeps booleans as 0/1 and date-times as Prisma's ISO text, and binds named parameters. */
const storage: Storage = {
  param: (name) => `@${name}`,
  single: "?",
  keepUnlessSet: (column, flag, value) => `iif(${flag}, ${value}, ${column})`,
  converter: (field) => ({ boolean: "storedBoolean", datetime: "storedDateTime" })[field.kind as string],
  storedDefault(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return "storedNow()";
    if (field.kind === "boolean") return String(Number(fallback.value));
    if (field.kind === "datetime") return JSON.stringify(storedDateTime(fallback.value));
    return JSON.stringify(fallback.value);
  },
};

/** A date-time literal as SQLite stores it. */
const storedDateTime = (value: string | number | boolean) => `${defaultDateTime(value)}.000+00:00`;

export const sqlite: Target = {
  database: "sqlite",
  provider: "sqlite",
  async: false,
  // wal.ts: `npm run migrate` switches the database file to WAL mode once.
  files: [...DATABASE_MODULES, "wal.ts"],
  templates: {},
  runtimeFiles: { "src/prisma-adapter.ts": "sqlite-prisma-adapter.ts" },
  dependencies: ["@prisma/adapter-better-sqlite3", "better-sqlite3"],
  devDependencies: ["@types/better-sqlite3"],
  migrateScript: "prisma migrate deploy && node run.js wal",
  label: "SQLite",
  implicitDatabaseUrl: "file:./data.db",
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

  tableContext(table: Table, model: Model) {
    const converted = table.fields.filter((field) => READERS[field.kind] !== undefined);
    const context = tableContext(table, model, storage);
    return {
      ...context,
      /** Rows differ from records only when a value is stored in another form. */
      converted: converted.length > 0,
      rowFields: table.fields.map((field) => ({
        name: field.name,
        type: field.kind === "boolean" ? "number" : TS_TYPES[field.kind],
        required: field.required,
        reader: READERS[field.kind],
      })),
      valueHelpers: [...new Set([...context.valueHelpers, ...converted.map((field) => READERS[field.kind]!)])].sort(),
    };
  },

  querySql: (query) => query.sql,
  scratchSchema: (model) =>
    scratchTables(model, {
      id: { number: "INTEGER PRIMARY KEY", uuid: "TEXT PRIMARY KEY" },
      types: {
        float: "REAL",
        integer: "INTEGER",
        uuid: "TEXT",
        text: "TEXT",
        boolean: "BOOLEAN",
        datetime: "DATETIME",
      },
    }),

  recordFinished: (name) => recordFinishedSql(name, "strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')"),
  migrationScript: wrapMigration,
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
