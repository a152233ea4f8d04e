import type { Model, Table } from "../model/types.ts";
import { render } from "../templates.ts";
import {
  createValue,
  defaultDateTime,
  quote,
  storedValue,
  tableImports,
  tableParts,
  writeHelpers,
  type Dialect,
} from "./tables.ts";

/** PostgreSQL takes booleans as they are and date-times as ISO text truncated to seconds. */
const postgres: Dialect = {
  converter: (field) => (field.kind === "datetime" ? "storedDateTime" : undefined),
  storedDefault(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return "storedNow()";
    if (field.kind === "datetime") return JSON.stringify(`${defaultDateTime(fallback.value)}Z`);
    return JSON.stringify(fallback.value);
  },
};

/** `src/tables/<table>.ts` for PostgreSQL: named prepared statements on the pool. */
export function emitPostgresTable(table: Table, model: Model): string {
  const parts = tableParts(table);
  const imports = tableImports(table, parts, writeHelpers(postgres, table));

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
      ...table.fields.map((field) => `${createValue(postgres, field)},`),
    ],
    updateValues: table.fields.flatMap((field) => [
      `"${field.name}" in changes,`,
      `${storedValue(postgres, field, `changes.${field.name}`)},`,
    ]),
  });
}
