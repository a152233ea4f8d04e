import type { Field, Model, Table } from "../model/types.ts";
import { tableIndexes } from "../model/indexes.ts";
import { defaultDateTime } from "../targets/tables.ts";

/**
 * The SQL of a server's first migration, from nothing to the tables of the model, written as
 * `prisma migrate diff --from-empty` writes it for the schema `emitPrismaSchema` makes (its steps,
 * order, names and layout, checked against Prisma in test/emit/first-migration.test.ts): generate
 * then starts no Prisma process for a new server. Undefined for anything it does not know (a text
 * default Prisma might escape its own way, a fractional default): Prisma computes that one.
 */
export function firstMigrationSql(model: Model): string | undefined {
  const dialect = DIALECTS[model.database];
  const tables: string[] = [];
  const indexes: string[] = [];
  const foreignKeys: string[] = [];
  for (const table of model.tables) {
    const columns = [dialect.id(table)];
    for (const field of table.fields) {
      const fallback = field.default === undefined ? "" : dialect.defaultSql(field);
      if (fallback === undefined) return undefined;
      const required = field.required ? " NOT NULL" : "";
      columns.push(`"${field.name}" ${dialect.type(field)}${required}${fallback && ` DEFAULT ${fallback}`}`);
    }
    const references = table.fields.filter((field) => field.relation);
    const constraint = (field: Field) => {
      const { table: target, onDelete } = field.relation!;
      const name = dialect.name(`${table.name}_${field.name}`, "fkey");
      return `CONSTRAINT "${name}" FOREIGN KEY ("${field.name}") REFERENCES "${target}"${dialect.referenceSpace}("id") ON DELETE ${ON_DELETE[onDelete]} ON UPDATE CASCADE`;
    };
    tables.push(`CREATE TABLE "${table.name}" (\n${dialect.body(table, columns, references.map(constraint))}\n)`);
    for (const field of table.fields.filter((candidate) => candidate.unique)) {
      const name = dialect.name(`${table.name}_${field.name}`, "key");
      indexes.push(`CREATE UNIQUE INDEX "${name}" ON "${table.name}"("${field.name}")`);
    }
    for (const { name, fields } of tableIndexes(table)) {
      indexes.push(`CREATE INDEX "${name}" ON "${table.name}"(${fields.map((field) => `"${field}"`).join(", ")})`);
    }
    if (dialect.foreignKeysApart) {
      for (const field of references) foreignKeys.push(`ALTER TABLE "${table.name}" ADD ${constraint(field)}`);
    }
  }
  const steps = [
    ...tables.map((sql) => `-- CreateTable\n${sql};\n`),
    ...indexes.map((sql) => `-- CreateIndex\n${sql};\n`),
    ...foreignKeys.map((sql) => `-- AddForeignKey\n${sql};\n`),
  ];
  return steps.join("\n");
}

const ON_DELETE = { restrict: "RESTRICT", cascade: "CASCADE", setNull: "SET NULL" } as const;

interface Dialect {
  id(table: Table): string;
  type(field: Field): string;
  /** A default as Prisma writes it, or undefined when it might write it otherwise. */
  defaultSql(field: Field): string | undefined;
  body(table: Table, columns: string[], constraints: string[]): string;
  /** A constraint's name: Prisma's `<base>_<suffix>`, cut to the database's longest name. */
  name(base: string, suffix: string): string;
  /** Whether foreign keys are added after every table and index (else inside CREATE TABLE). */
  foreignKeysApart: boolean;
  referenceSpace: string;
}

const indent = (lines: string[]) => lines.map((line) => `    ${line}`).join(",\n");

/** A default text or number Prisma writes as it is; anything else is left to Prisma. */
function plainDefault(field: Field): string | undefined {
  const { value } = field.default as { value: string | number | boolean };
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isInteger(value) && field.kind === "integer" ? String(value) : undefined;
  return /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/.test(value) ? `'${value}'` : undefined;
}

const sqlite: Dialect = {
  id: (table) =>
    table.id === "uuid" ? `"id" TEXT NOT NULL PRIMARY KEY` : `"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`,
  type: (field) =>
    ({ integer: "INTEGER", float: "REAL", text: "TEXT", uuid: "TEXT", boolean: "BOOLEAN", datetime: "DATETIME" })[
      field.kind
    ],
  defaultSql(field) {
    const fallback = field.default!;
    // The schema's dbgenerated(...) text, as the server stores date-times (src/targets/sqlite.ts).
    if (fallback.kind === "now") return `(strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'))`;
    if (field.kind === "datetime") return `'${defaultDateTime(fallback.value)}.000+00:00'`;
    return plainDefault(field);
  },
  body: (_table, columns, constraints) => indent([...columns, ...constraints]),
  name: (base, suffix) => `${base}_${suffix}`,
  foreignKeysApart: false,
  referenceSpace: " ",
};

/** PostgreSQL keeps names of up to 63 bytes: Prisma cuts the base of a longer one. */
const MAX_NAME = 63;

const postgresql: Dialect = {
  id: (table) => (table.id === "uuid" ? `"id" UUID NOT NULL` : `"id" SERIAL NOT NULL`),
  type(field) {
    if (field.kind === "text") return field.maxLength === undefined ? "TEXT" : `VARCHAR(${field.maxLength})`;
    return {
      integer: "INTEGER",
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
    `${indent(columns)},\n\n    CONSTRAINT "${postgresql.name(table.name, "pkey")}" PRIMARY KEY ("id")`,
  name: (base, suffix) => `${base.slice(0, MAX_NAME - suffix.length - 1)}_${suffix}`,
  foreignKeysApart: true,
  referenceSpace: "",
};

const DIALECTS: Record<Model["database"], Dialect> = { sqlite, postgresql };
