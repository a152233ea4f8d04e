import type { Field, Model, Table } from "../model/types.ts";
import { render } from "../templates.ts";
import { createValue, defaultDateTime, quote, tableImports, tableParts } from "./tables.ts";

/** The stored value of an API value in PostgreSQL (absent and null become null). */
function storedValue(field: Field, value: string): string {
  return field.kind === "datetime" ? `storedDateTime(${value})` : `${value} ?? null`;
}

function storedDefault(field: Field): string {
  const fallback = field.default!;
  if (fallback.kind === "now") return "storedNow()";
  if (field.kind === "datetime") return JSON.stringify(`${defaultDateTime(fallback.value)}Z`);
  return JSON.stringify(fallback.value);
}

/** `src/tables/<table>.ts` for PostgreSQL: named prepared statements on the pool. */
export function emitPostgresTable(table: Table, model: Model): string {
  const parts = tableParts(table);
  const valueHelpers = new Set<string>();
  for (const field of table.fields) {
    if (field.kind === "datetime") valueHelpers.add("storedDateTime");
    if (field.default?.kind === "now") valueHelpers.add("storedNow");
  }
  const imports = tableImports(table, parts, valueHelpers);

  return render("server/table/postgres-table.ts.hbs", {
    ...parts,
    project: model.project,
    imports,
    insertParams: parts.insertFields.map((_, index) => `$${index + 1}`).join(", "),
    // $1 is the id; each field then takes two: whether it changes, and its new value.
    updateSets: table.fields
      .map(
        (field, index) =>
          `${quote(field.name)} = CASE WHEN $${2 * index + 2} THEN $${2 * index + 3} ELSE ${quote(field.name)} END`,
      )
      .join(", "),
    insertValues: [
      ...(table.id === "uuid" ? ["randomUUID(),"] : []),
      ...table.fields.map((field) => `${createValue(field, storedValue, storedDefault)},`),
    ],
    updateValues: table.fields.flatMap((field) => [
      `"${field.name}" in changes,`,
      `${storedValue(field, `changes.${field.name}`)},`,
    ]),
  });
}
