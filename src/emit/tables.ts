import type { Field, Model, Table } from "../model/types.ts";
import { render } from "../templates.ts";
import { tableNames } from "./names.ts";

const JSON_TYPES = { float: "number", integer: "integer", uuid: "string", text: "string", boolean: "boolean", datetime: "string" } as const;
const TS_TYPES = { float: "number", integer: "number", uuid: "string", text: "string", boolean: "boolean", datetime: "string" } as const;
const MAX_INT = 2147483647;

const quote = (name: string) => `"${name}"`;
const nullable = (type: string, field: Field) => (field.required ? type : `${type} | null`);

/** `src/schemas/<table>.ts`: record and input types, and the JSON Schemas of requests and responses. */
export function emitTableSchemas(table: Table, model: Model): string {
  const names = tableNames(table.name);
  const idType = table.id === "uuid" ? "string" : "number";
  const idSchema = table.id === "uuid" ? '{ type: "string" }' : '{ type: "integer" }';
  return render("server/table/schemas.ts.hbs", {
    ...names,
    project: model.project,
    recordTypes: [`id: ${idType};`, ...table.fields.map((field) => `${field.name}: ${nullable(TS_TYPES[field.kind], field)};`)],
    inputTypes: table.fields.map((field) => {
      const optional = !field.required || field.default !== undefined;
      return `${field.name}${optional ? "?" : ""}: ${nullable(TS_TYPES[field.kind], field)};`;
    }),
    recordSchema: [`id: ${idSchema},`, ...table.fields.map((field) => `${field.name}: { type: ${jsonType(field)} },`)],
    recordRequired: ["id", ...table.fields.map((field) => field.name)].map(quote).join(", "),
    fieldSchemas: table.fields.map((field) => `${field.name}: ${fieldSchema(field)},`),
    createRequired: table.fields
      .filter((field) => field.required && field.default === undefined)
      .map((field) => quote(field.name))
      .join(", "),
  });
}

function jsonType(field: Field): string {
  const type = JSON_TYPES[field.kind];
  return field.required ? `"${type}"` : `["${type}", "null"]`;
}

/** The JSON Schema of a field in a request body. */
function fieldSchema(field: Field): string {
  const parts = [`type: ${jsonType(field)}`];
  if (field.kind === "text" && field.required) parts.push("minLength: 1");
  if (field.maxLength !== undefined) parts.push(`maxLength: ${field.maxLength}`);
  if (field.type === "EMAIL") parts.push('format: "email"');
  if (field.type === "PHONE") parts.push('format: "phone"');
  if (field.kind === "datetime") parts.push('format: "datetime"');
  if (field.kind === "uuid") parts.push('format: "uuid"');
  if (field.kind === "integer") parts.push(field.relation ? `minimum: 1, maximum: ${MAX_INT}` : `minimum: ${-MAX_INT - 1}, maximum: ${MAX_INT}`);
  return `{ ${parts.join(", ")} }`;
}

/** `src/tables/<table>.ts` for SQLite: prepared statements and the operations the routes run. */
export function emitSqliteTable(table: Table, model: Model): string {
  const names = tableNames(table.name);
  const converted = table.fields.filter((field) => field.kind === "boolean" || field.kind === "datetime");
  const rowType = converted.length > 0 ? names.rowType : undefined;
  const row = rowType ?? names.record;
  const references = table.fields.flatMap((field) => (field.relation ? [{ field: field.name, table: field.relation.table }] : []));
  const referrers = uniqueBy(table.referencedBy, (reference) => `${reference.table}.${reference.field}`).map((reference) => ({
    table: reference.table,
    field: reference.field,
  }));

  const valueHelpers = new Set<string>();
  for (const field of table.fields) {
    if (field.kind === "boolean") valueHelpers.add("apiBoolean").add("storedBoolean");
    if (field.kind === "datetime") valueHelpers.add("apiDateTime").add("storedDateTime");
    if (field.default?.kind === "now") valueHelpers.add("storedNow");
  }
  const imports = [
    table.id === "uuid" ? 'import { randomUUID } from "node:crypto";' : undefined,
    'import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";',
    'import type { Db, StoredValues } from "../db.js";',
    `import { ${table.id === "uuid" ? "uuidId" : "numberId"} } from "../http/ids.js";`,
    `import type { ${names.input}, ${names.record} } from "../schemas/${table.name}.js";`,
    valueHelpers.size > 0 ? `import { ${[...valueHelpers].sort().join(", ")} } from "../values.js";` : undefined,
  ].filter((line) => line !== undefined);

  const insertFields = table.id === "uuid" ? ["id", ...table.fields.map((field) => field.name)] : table.fields.map((field) => field.name);
  return render("server/table/sqlite-table.ts.hbs", {
    ...names,
    project: model.project,
    imports,
    rowType,
    row,
    rowTypes: [
      `id: ${table.id === "uuid" ? "string" : "number"};`,
      ...table.fields.map((field) => `${field.name}: ${nullable(storedTsType(field), field)};`),
    ],
    columns: ["id", ...table.fields.map((field) => field.name)].map(quote).join(", "),
    conversions: converted.map((field) => `${field.name}: ${field.kind === "boolean" ? "apiBoolean" : "apiDateTime"}(row.${field.name})`).join(", "),
    idType: table.id === "uuid" ? "string" : "number",
    idParser: table.id === "uuid" ? "uuidId" : "numberId",
    insertColumns: insertFields.map(quote).join(", "),
    insertParams: insertFields.map((name) => `@${name}`).join(", "),
    updateSets: table.fields.map((field) => `"${field.name}" = iif(@set_${field.name}, @${field.name}, "${field.name}")`).join(", "),
    insertValues: [...(table.id === "uuid" ? ["id: randomUUID(),"] : []), ...table.fields.map((field) => `${field.name}: ${createValue(field)},`)],
    updateValues: table.fields.flatMap((field) => [
      `set_${field.name}: Number("${field.name}" in changes),`,
      `${field.name}: ${storedValue(field, `changes.${field.name}`)},`,
    ]),
    references,
    referrers,
    mapRows: rowType ? ".map(toRecord)" : "",
    mapRow: rowType ? "toRecord(row)" : "row",
    mapOptionalRow: rowType ? "row && toRecord(row)" : "row",
  });
}

function storedTsType(field: Field): string {
  if (field.kind === "boolean") return "number";
  return TS_TYPES[field.kind];
}

/** The stored value of an API value (absent and null become null). */
function storedValue(field: Field, value: string): string {
  if (field.kind === "boolean") return `storedBoolean(${value})`;
  if (field.kind === "datetime") return `storedDateTime(${value})`;
  return `${value} ?? null`;
}

/** The stored value on create: the field's default when absent. */
function createValue(field: Field): string {
  const value = `input.${field.name}`;
  const fallback = field.default;
  if (!fallback) return field.required && field.kind !== "boolean" && field.kind !== "datetime" ? value : storedValue(field, value);
  const stored =
    fallback.kind === "now"
      ? "storedNow()"
      : field.kind === "boolean"
        ? String(Number(fallback.value))
        : field.kind === "datetime"
          ? JSON.stringify(new Date(String(fallback.value)).toISOString().slice(0, 19) + ".000+00:00")
          : JSON.stringify(fallback.value);
  const convert = field.kind === "boolean" || field.kind === "datetime" ? storedValue(field, value) : value;
  return `${value} === undefined ? ${stored} : ${convert}`;
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && seen.add(key(item)));
}
