import type { Field, Model, Table, ValueKind } from "../model/types.ts";
import { columnKind, idValueKind } from "../model/build.ts";
import type { Rename } from "../migrate/plan.ts";
import { positionalSql } from "../manifest/sql.ts";
import { renamedIndexes } from "./renames.ts";
import { literal, plainDefault, quote, recordFinishedSql, sqlList, statement, tableLines } from "./sql.ts";
import { defaultDateTime, tableContext, type Storage, type TableContext } from "./tables.ts";
import { DATABASE_MODULES, templatePath, type Target } from "./target.ts";

/** PostgreSQL takes booleans as they are and date-times as ISO text truncated to seconds; `$n` parameters. */
const storage: Storage = {
  param: (_name, position) => `$${position}`,
  single: "$1",
  keepUnlessSet: (column, flag, value) => `CASE WHEN ${flag} THEN ${value} ELSE ${column} END`,
  // One parameter, an array of the ids: one prepared statement for any number of them.
  inIds: (column) => `${column} = ANY($1)`,
  converter: (field) => (field.kind === "datetime" ? "storedDateTime" : undefined),
  returned: ({ name, kind }) => (kind === "bigint" ? `${quote(name)}::text AS ${quote(name)}` : undefined),
  idOrder: (table) => (table.id === "bigint" ? `"id"::int8` : undefined),
  storedDefault(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return "storedNow()";
    if (field.kind === "datetime") return JSON.stringify(`${defaultDateTime(fallback.value)}Z`);
    return JSON.stringify(fallback.value);
  },
};

/** The context of `templates/server/postgresql/table.ts.hbs`. */
export interface PostgresTableContext extends TableContext {
  sql: TableContext["sql"] & { batch: string; insertMany: string };
  /** The table's float fields, whose JSON text JavaScript rewrites (values.ts's jsonDoubles). */
  doubles: string[];
  /** The values of the insert and update statements, as code, in their parameters' order. */
  createValues: string[];
  updateValues: string[];
}

export const postgresql: Target<PostgresTableContext> = {
  database: "postgresql",
  provider: "postgresql",
  files: DATABASE_MODULES,
  runtimeFiles: { "src/prisma-adapter.ts": "prisma-adapter.ts" },
  dependencies: ["@prisma/adapter-pg", "pg"],
  devDependencies: ["@types/pg"],
  migrateScript: "prisma migrate deploy",
  label: "PostgreSQL",
  choice: "PostgreSQL",
  implicitDatabaseUrl: undefined,
  urlProblem: (url) =>
    /^postgres(ql)?:\/\/[^/]/.test(url)
      ? undefined
      : 'DATABASE_URL of a PostgreSQL project is a postgresql:// URL, such as "postgresql://user:password@localhost:5432/app"',
  defaultDatabaseUrl: (project) => `postgresql://postgres@localhost:5432/${project.replace(/-/g, "_")}`,
  placeholderUrl: "postgresql://tablegen@localhost:5432/tablegen",

  prismaAttributes(field) {
    if (field.kind === "datetime") return ["@db.Timestamptz(0)"];
    if (field.kind === "uuid") return ["@db.Uuid"];
    if (field.kind === "text" && field.maxLength !== undefined) return [`@db.VarChar(${field.maxLength})`];
    return [];
  },
  // timestamptz is one stored form whatever the default is written as.
  prismaDateTimeDefault: (fallback) =>
    fallback.kind === "now" ? "now()" : JSON.stringify(`${defaultDateTime(fallback.value)}.000Z`),
  uuidIdAttributes: ["@db.Uuid"],
  defaultSql(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return "now()";
    if (field.kind === "datetime") return literal(`${defaultDateTime(fallback.value)}Z`);
    if (typeof fallback.value === "boolean") return String(fallback.value).toUpperCase();
    return typeof fallback.value === "string" ? literal(fallback.value) : String(fallback.value);
  },

  tableModule: templatePath<PostgresTableContext>("server/postgresql/table.ts.hbs"),
  tableContext(table, model) {
    const context = tableContext(table, model, storage);
    const doubles = table.fields.filter((field) => field.kind === "float").map((field) => field.name);
    return {
      ...context,
      sql: { ...context.sql, batch: batchSql(table), insertMany: insertManySql(table) },
      doubles,
      createValues: [
        ...(table.id === "uuid" ? ["randomUUID()"] : []),
        ...context.fields.map((field) => field.createValue),
      ],
      updateValues: [
        "id",
        ...context.fields.flatMap((field) => [`${JSON.stringify(field.name)} in changes`, field.changeValue]),
      ],
      valueHelpers: [...(doubles.length > 0 ? ["jsonDoubles"] : []), ...context.valueHelpers],
    };
  },

  querySql: (query) =>
    positionalSql(
      query.sql,
      query.params.map((param) => param.name),
    ),

  // PostgreSQL gives every output column a type, whatever computes it; an int8 taken straight from
  // a bigint id or reference is one too (a string of digits), where a count is a number.
  columnKind: (model, { typeId, table, column }) =>
    table && column && columnKind(model, table, column) === "bigint"
      ? "bigint"
      : typeId === undefined
        ? undefined
        : RESULT_KINDS[typeId],

  tableSql: {
    id: (table) => `"id" ${{ uuid: "UUID", bigint: "BIGSERIAL", number: "SERIAL" }[table.id]} NOT NULL`,
    type(field) {
      if (field.kind === "text") return field.maxLength === undefined ? "TEXT" : `VARCHAR(${field.maxLength})`;
      return {
        integer: "INTEGER",
        bigint: "BIGINT",
        float: "DOUBLE PRECISION",
        uuid: "UUID",
        boolean: "BOOLEAN",
        datetime: "TIMESTAMPTZ(0)",
      }[field.kind];
    },
    defaultSql(field) {
      const fallback = field.default!;
      if (fallback.kind === "now") return "CURRENT_TIMESTAMP";
      if (field.kind === "datetime") return `'${defaultDateTime(fallback.value).replace("T", " ")} +00:00'`;
      return plainDefault(field);
    },
    body: (table, columns) =>
      `${tableLines(columns)},\n\n    CONSTRAINT "${constraintName(table.name, "pkey")}" PRIMARY KEY ("id")`,
    name: (base, suffix) => constraintName(base, suffix),
    foreignKeysApart: true,
    referenceSpace: "",
  },

  recordFinished: (name) => recordFinishedSql(name, "now()"),
  migrationScript: (sql) => `BEGIN;\n\n${sql.trim()}\n\nCOMMIT;\n`,
  // PostgreSQL adds a column with a constant default in place: Prisma's diff is run as it is.
  diffSql: (sql) => sql,
  renameSql,
};

/** PostgreSQL keeps names of up to 63 bytes: Prisma cuts the base of a longer one. */
const MAX_NAME = 63;

/** A constraint's name as Prisma makes it: `<base>_<suffix>`, the base cut to fit MAX_NAME. */
const constraintName = (base: string, suffix: string) => `${base.slice(0, MAX_NAME - suffix.length - 1)}_${suffix}`;

/**
 * A field as the JSON text of the answers: date-times in the API's form, in UTC whatever the
 * session's TimeZone (a pooler's sessions are not the server's to set), bigint ids and references
 * as strings of digits (JSON numbers beyond 2^53 lose digits in most clients), and
 * doubles that JSON cannot hold (infinities, NaN) as null, as JSON.stringify writes them. Other
 * doubles are rewritten in JavaScript (`jsonDoubles`): PostgreSQL may print other digits of the
 * same double, and another notation.
 */
function jsonColumn(field: Pick<Field, "name" | "kind">): string {
  const column = quote(field.name);
  if (field.kind === "bigint") return `${column}::text AS ${column}`;
  if (field.kind === "datetime")
    return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ${column}`;
  if (field.kind === "float")
    return `CASE WHEN ${column} IN ('Infinity', '-Infinity', 'NaN') THEN NULL ELSE ${column} END AS ${column}`;
  return column;
}

/**
 * The whole table's next batch after an id, as PostgreSQL writes it: in pieces of LIST_PART records,
 * each the records' JSON text joined by commas (byte for byte what JSON.stringify makes of the rows the
 * other statements return), how many there are, and the last id. A few strings per batch instead of
 * an object per row keeps a streamed list's memory flat.
 */
/** The array type a column's values are bound as, many rows at once (text for varchar: a cast to varchar(n) would cut). */
const ARRAY_TYPES: Record<ValueKind, string> = {
  integer: "int4[]",
  float: "float8[]",
  text: "text[]",
  uuid: "uuid[]",
  bigint: "int8[]",
  boolean: "bool[]",
  datetime: "timestamptz[]",
};

/** An insert of many rows in one statement, a batch's creates: each column's values as one array parameter. */
function insertManySql(table: Table): string {
  const columns = [...(table.id === "uuid" ? [{ name: "id", kind: "uuid" as const }] : []), ...table.fields];
  return statement([
    `INSERT INTO ${quote(table.name)} ${sqlList(
      columns.map(({ name }) => quote(name)),
      "(",
      ")",
    )}`,
    `SELECT * FROM unnest${sqlList(
      columns.map(({ kind }, index) => `$${index + 1}::${ARRAY_TYPES[kind]}`),
      "(",
      ")",
    )}`,
    "RETURNING ${COLUMNS}",
  ]);
}

function batchSql(table: Table): string {
  const columns = [jsonColumn({ name: "id", kind: idValueKind(table) }), ...table.fields.map(jsonColumn)];
  const indent = (text: string, depth: number) => text.replace(/^/gm, " ".repeat(depth));
  // A bigint id is read as text: ordered as the number it is.
  const bigint = table.id === "bigint";
  const id = (source: string) => (bigint ? `${source}."id"::int8` : `${source}."id"`);
  return statement([
    `SELECT string_agg(part."json", ',' ORDER BY ${id("part")}) AS "json",`,
    `  count(*)::int AS "size",`,
    `  (array_agg(part."id" ORDER BY ${id("part")} DESC))[1] AS "last"`,
    "FROM (",
    `  SELECT record."id", row_to_json(record.*)::text AS "json",`,
    `    (row_number() OVER (ORDER BY ${id("record")}) - 1) / \${LIST_PART} AS "number"`,
    "  FROM (",
    "    SELECT",
    indent(columns.join(",\n"), 6),
    `    FROM ${quote(table.name)} WHERE "id" > $1 ORDER BY ${bigint ? `${quote(table.name)}."id"` : `"id"`} LIMIT \${LIST_BATCH}`,
    "  ) AS record",
    ") AS part",
    `GROUP BY part."number"`,
    `ORDER BY part."number"`,
  ]);
}

/**
 * PostgreSQL statements for renames. Prisma names constraints, indexes and sequences after their
 * table and column (`users_pkey`, `users_email_key`, `posts_user_id_fkey`, `users_id_seq`) and later
 * migrations refer to them by those names, so they are renamed along with what they belong to.
 */
function renameSql(renames: Rename[], renamedPrevious: Model): string {
  if (renames.length === 0) return "";
  const tableRenames = renames.filter((rename) => rename.kind === "table");
  const oldTable = (table: string) => tableRenames.find((rename) => rename.to === table)?.from ?? table;
  const oldColumn = (table: string, column: string) =>
    renames.find((rename) => rename.kind === "field" && rename.table === table && rename.to === column)?.from ?? column;

  const lines = ["-- Renames (tablegen: renamedFrom keeps the data)"];
  for (const { from, to } of tableRenames) lines.push(`ALTER TABLE ${quote(from)} RENAME TO ${quote(to)};`);
  for (const rename of renames) {
    if (rename.kind === "field")
      lines.push(`ALTER TABLE ${quote(rename.table)} RENAME COLUMN ${quote(rename.from)} TO ${quote(rename.to)};`);
  }
  for (const table of renamedPrevious.tables) {
    const before = oldTable(table.name);
    const renameConstraint = (from: string, to: string) => {
      if (from !== to) lines.push(`ALTER TABLE ${quote(table.name)} RENAME CONSTRAINT ${quote(from)} TO ${quote(to)};`);
    };
    renameConstraint(`${before}_pkey`, `${table.name}_pkey`);
    if (table.id === "number" && before !== table.name) {
      lines.push(`ALTER SEQUENCE ${quote(`${before}_id_seq`)} RENAME TO ${quote(`${table.name}_id_seq`)};`);
    }
    for (const field of table.fields) {
      const column = oldColumn(table.name, field.name);
      if (field.unique && `${before}_${column}_key` !== `${table.name}_${field.name}_key`) {
        lines.push(
          `ALTER INDEX ${quote(`${before}_${column}_key`)} RENAME TO ${quote(`${table.name}_${field.name}_key`)};`,
        );
      }
      if (field.relation) renameConstraint(`${before}_${column}_fkey`, `${table.name}_${field.name}_fkey`);
    }
  }
  for (const { from, to } of renamedIndexes(renames, renamedPrevious)) {
    lines.push(`ALTER INDEX ${quote(from)} RENAME TO ${quote(to)};`);
  }
  return lines.join("\n") + "\n";
}

/**
 * The kind a custom query's output column is answered as, by the type PostgreSQL gives it (its
 * OID): the generated server's pg type parsers (db.ts) read these types as the kinds say. Other
 * types (date, json, arrays, intervals…) are answered as the pg driver reads them, untyped.
 */
const RESULT_KINDS: Readonly<Record<number, ValueKind>> = {
  16: "boolean", // bool
  20: "integer", // int8 (count, sum of integers)
  21: "integer", // int2
  23: "integer", // int4
  700: "float", // float4
  701: "float", // float8
  1700: "float", // numeric (avg, sums of numerics)
  25: "text", // text
  1042: "text", // bpchar
  1043: "text", // varchar
  1114: "datetime", // timestamp
  1184: "datetime", // timestamptz
  2950: "uuid", // uuid
};
