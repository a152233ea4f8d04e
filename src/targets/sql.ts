/** SQL text as generated servers and migrations carry it: quoted names, and statements laid out to be read. */

import type { Model, ValueKind } from "../model/types.ts";

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

/** Column types of a database, by the model's value kinds and id kinds. */
export interface ScratchTypes {
  id: Record<"number" | "uuid", string>;
  types: Record<ValueKind, string>;
}

/** The model's tables as CREATE TABLE statements: what a custom query can name, typed. */
export function scratchTables(model: Model, { id, types }: ScratchTypes): string {
  return model.tables
    .map((table) => {
      const columns = [
        `${quote("id")} ${id[table.id]}`,
        ...table.fields.map((field) => `${quote(field.name)} ${types[field.kind]}${field.required ? " NOT NULL" : ""}`),
      ];
      return `CREATE TABLE ${quote(table.name)} (${columns.join(", ")});`;
    })
    .join("\n");
}

/** Marks a migration's row of Prisma's history finished, `now` being the database's time as Prisma stores it. */
export function recordFinishedSql(name: string, now: string): string {
  return [
    "-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.",
    `UPDATE "_prisma_migrations" SET "finished_at" = ${now}, "applied_steps_count" = 1`,
    `WHERE "migration_name" = ${literal(name)} AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;`,
  ].join("\n");
}
