import type { Field, Model, Table } from "../model/types.ts";
import { render } from "../templates.ts";
import { TS_TYPES, createValue, defaultDateTime, nullable, quote, tableImports, tableParts } from "./tables.ts";

/** The stored value of an API value in SQLite (absent and null become null). */
function storedValue(field: Field, value: string): string {
  if (field.kind === "boolean") return `storedBoolean(${value})`;
  if (field.kind === "datetime") return `storedDateTime(${value})`;
  return `${value} ?? null`;
}

function storedDefault(field: Field): string {
  const fallback = field.default!;
  if (fallback.kind === "now") return "storedNow()";
  if (field.kind === "boolean") return String(Number(fallback.value));
  if (field.kind === "datetime") return JSON.stringify(`${defaultDateTime(fallback.value)}.000+00:00`);
  return JSON.stringify(fallback.value);
}

/** `src/tables/<table>.ts` for SQLite: prepared statements and the operations the routes run. */
export function emitSqliteTable(table: Table, model: Model): string {
  const parts = tableParts(table);
  const converted = table.fields.filter((field) => field.kind === "boolean" || field.kind === "datetime");
  const rowType = converted.length > 0 ? parts.rowType : undefined;

  const valueHelpers = new Set<string>();
  for (const field of table.fields) {
    if (field.kind === "boolean") valueHelpers.add("apiBoolean").add("storedBoolean");
    if (field.kind === "datetime") valueHelpers.add("apiDateTime").add("storedDateTime");
    if (field.default?.kind === "now") valueHelpers.add("storedNow");
  }
  const imports = tableImports(table, parts, valueHelpers);

  return render("server/table/sqlite-table.ts.hbs", {
    ...parts,
    project: model.project,
    imports,
    rowType,
    row: rowType ?? parts.record,
    rowTypes: [
      `id: ${table.id === "uuid" ? "string" : "number"};`,
      ...table.fields.map(
        (field) => `${field.name}: ${nullable(field.kind === "boolean" ? "number" : TS_TYPES[field.kind], field)};`,
      ),
    ],
    recordFields: ["id", ...table.fields.map((field) => field.name)].map((name) => {
      const field = table.fields.find((candidate) => candidate.name === name);
      if (field?.kind === "boolean") return `${name}: apiBoolean(row.${name}),`;
      if (field?.kind === "datetime") return `${name}: apiDateTime(row.${name}),`;
      return `${name}: row.${name},`;
    }),
    idType: table.id === "uuid" ? "string" : "number",
    insertParams: parts.insertFields.map((name) => `@${name}`).join(", "),
    updateSets: table.fields
      .map((field) => `${quote(field.name)} = iif(@set_${field.name}, @${field.name}, ${quote(field.name)})`)
      .join(", "),
    insertValues: [
      ...(table.id === "uuid" ? ["id: randomUUID(),"] : []),
      ...table.fields.map((field) => `${field.name}: ${createValue(field, storedValue, storedDefault)},`),
    ],
    updateValues: table.fields.flatMap((field) => [
      `set_${field.name}: Number("${field.name}" in changes),`,
      `${field.name}: ${storedValue(field, `changes.${field.name}`)},`,
    ]),
    mapRows: rowType ? ".map(toRecord)" : "",
    mapRow: rowType ? "toRecord(row)" : "row",
    mapOptionalRow: rowType ? "row && toRecord(row)" : "row",
  });
}
