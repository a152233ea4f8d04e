/** SQL text as generated servers and migrations carry it: quoted names, and statements laid out to be read. */

import type { Field, Model } from "../model/types.ts";
import type { TableSql } from "./target.ts";

export const quote = (name: string) => `"${name}"`;

/** A text as an SQL string literal. */
export const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Longest single-line statement; longer ones are laid out one clause per line. */
const WIDTH = 100;

/**
 * A list of items between `open` and `close`: on one line when it is short, else one item per
 * line, indented under the clause, with `close` on a line of its own.
 */
export function sqlList(items: string[], open = "", close = ""): string {
  const line = items.join(", ");
  if (line.length <= WIDTH) return `${open}${line}${close}`;
  return `${open.trimEnd()}\n  ${items.join(",\n  ")}${close ? `\n${close}` : ""}`;
}

/**
 * A statement from its clauses: one line when it fits, otherwise each clause on a line of its own,
 * indented as the generated module's SQL constants are (a template literal inside an object).
 */
export function statement(clauses: string[]): string {
  const line = clauses.join(" ");
  if (line.length <= WIDTH && !line.includes("\n")) return line;
  const lines = clauses.join("\n").split("\n");
  return `\n${lines.map((text) => `    ${text}`).join("\n")}\n  `;
}

/** The column list every statement of a table returns, `id` first. */
export function columnList(columns: string[]): string {
  return sqlList(columns.map(quote));
}

/**
 * The model's tables as CREATE TABLE statements of a database, columns typed as its migrations make
 * them: what a custom query can name, in the scratch database it is prepared in.
 */
export function scratchTables(model: Model, tableSql: TableSql): string {
  return model.tables
    .map((table) => {
      const columns = [
        tableSql.id(table),
        ...table.fields.map(
          (field) => `${quote(field.name)} ${tableSql.type(field)}${field.required ? " NOT NULL" : ""}`,
        ),
      ];
      return `CREATE TABLE ${quote(table.name)} (${columns.join(", ")});`;
    })
    .join("\n");
}

/** A default text or number Prisma writes as it is in a CREATE TABLE; undefined for anything else. */
export function plainDefault(field: Field): string | undefined {
  const { value } = field.default as { value: string | number | boolean };
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isInteger(value) && field.kind === "integer" ? String(value) : undefined;
  return /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/.test(value) ? `'${value}'` : undefined;
}

/** The lines of a CREATE TABLE's body, indented as Prisma writes them. */
export const tableLines = (lines: string[]) => lines.map((line) => `    ${line}`).join(",\n");

/** Marks a migration's row of Prisma's history finished, `now` being the database's time as Prisma stores it. */
export function recordFinishedSql(name: string, now: string): string {
  return [
    "-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.",
    `UPDATE "_prisma_migrations" SET "finished_at" = ${now}, "applied_steps_count" = 1`,
    `WHERE "migration_name" = ${literal(name)} AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;`,
  ].join("\n");
}
