import type { Model, Table } from "../model/types.ts";
import { render } from "../templates.ts";
import {
  TS_TYPES,
  createValue,
  defaultDateTime,
  nullable,
  quote,
  storedValue,
  tableImports,
  tableParts,
  writeHelpers,
  type Dialect,
} from "./tables.ts";

/** SQLite keeps booleans as 0/1 and date-times as Prisma's ISO text. */
const sqlite: Dialect = {
  converter: (field) => ({ boolean: "storedBoolean", datetime: "storedDateTime" })[field.kind as string],
  storedDefault(field) {
    const fallback = field.default!;
    if (fallback.kind === "now") return "storedNow()";
    if (field.kind === "boolean") return String(Number(fallback.value));
    if (field.kind === "datetime") return JSON.stringify(`${defaultDateTime(fallback.value)}.000+00:00`);
    return JSON.stringify(fallback.value);
  },
};

/** `src/tables/<table>.ts` for SQLite: prepared statements and the operations the routes run. */
export function emitSqliteTable(table: Table, model: Model): string {
  const parts = tableParts(table);
  const converted = table.fields.filter((field) => field.kind === "boolean" || field.kind === "datetime");
  const rowType = converted.length > 0 ? parts.rowType : undefined;

  const valueHelpers = writeHelpers(sqlite, table);
  for (const field of converted) valueHelpers.add(field.kind === "boolean" ? "apiBoolean" : "apiDateTime");
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
    recordFields: [
      "id: row.id,",
      ...table.fields.map(({ name, kind }) => {
        const reader = { boolean: "apiBoolean", datetime: "apiDateTime" }[kind as string];
        return reader ? `${name}: ${reader}(row.${name}),` : `${name}: row.${name},`;
      }),
    ],
    idType: table.id === "uuid" ? "string" : "number",
    insertParams: parts.insertFields.map((name) => `@${name}`).join(", "),
    updateSets: table.fields
      .map((field) => `${quote(field.name)} = iif(@set_${field.name}, @${field.name}, ${quote(field.name)})`)
      .join(", "),
    insertValues: [
      ...(table.id === "uuid" ? ["id: randomUUID(),"] : []),
      ...table.fields.map((field) => `${field.name}: ${createValue(sqlite, field)},`),
    ],
    updateValues: table.fields.flatMap((field) => [
      `set_${field.name}: Number("${field.name}" in changes),`,
      `${field.name}: ${storedValue(sqlite, field, `changes.${field.name}`)},`,
    ]),
    mapRows: rowType ? ".map(toRecord)" : "",
    mapRow: rowType ? "toRecord(row)" : "row",
    mapOptionalRow: rowType ? "row && toRecord(row)" : "row",
  });
}
