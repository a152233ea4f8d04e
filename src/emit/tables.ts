import type { Field, Model, Table } from "../model/types.ts";
import { render } from "../templates.ts";
import { tableNames } from "./names.ts";

const JSON_TYPES = {
  float: "number",
  integer: "integer",
  uuid: "string",
  text: "string",
  boolean: "boolean",
  datetime: "string",
} as const;
export const TS_TYPES = {
  float: "number",
  integer: "number",
  uuid: "string",
  text: "string",
  boolean: "boolean",
  datetime: "string",
} as const;
const MAX_INT = 2147483647;

export const quote = (name: string) => `"${name}"`;
export const nullable = (type: string, field: Field) => (field.required ? type : `${type} | null`);

/** `src/schemas/<table>.ts`: record and input types, and the JSON Schemas of requests and responses. */
export function emitTableSchemas(table: Table, model: Model): string {
  const names = tableNames(table.name);
  const idType = table.id === "uuid" ? "string" : "number";
  const idSchema = table.id === "uuid" ? '{ type: "string" }' : '{ type: "integer" }';
  return render("server/table/schemas.ts.hbs", {
    ...names,
    project: model.project,
    recordTypes: [
      `id: ${idType};`,
      ...table.fields.map((field) => `${field.name}: ${nullable(TS_TYPES[field.kind], field)};`),
    ],
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
  if (field.kind === "integer")
    parts.push(field.relation ? `minimum: 1, maximum: ${MAX_INT}` : `minimum: ${-MAX_INT - 1}, maximum: ${MAX_INT}`);
  return `{ ${parts.join(", ")} }`;
}

/** What the table modules of both databases share: names, columns, references. */
export function tableParts(table: Table) {
  const referrers = uniqueBy(table.referencedBy, (reference) => `${reference.table}.${reference.field}`);
  const insertFields = [...(table.id === "uuid" ? ["id"] : []), ...table.fields.map((field) => field.name)];
  return {
    ...tableNames(table.name),
    columns: ["id", ...table.fields.map((field) => field.name)].map(quote).join(", "),
    insertFields,
    insertColumns: insertFields.map(quote).join(", "),
    idParser: table.id === "uuid" ? "uuidId" : "numberId",
    references: table.fields.flatMap((field) =>
      field.relation ? [{ field: field.name, table: field.relation.table }] : [],
    ),
    referrers: referrers.map(({ table, field }) => ({ table, field })),
  };
}

/** The imports of a table module; `valueHelpers` are the stored-value functions it uses. */
export function tableImports(table: Table, parts: ReturnType<typeof tableParts>, valueHelpers: Set<string>): string[] {
  return [
    table.id === "uuid" ? 'import { randomUUID } from "node:crypto";' : undefined,
    'import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";',
    'import type { Db, StoredValues } from "../db.js";',
    `import { ${parts.idParser} } from "../http/ids.js";`,
    `import type { ${parts.input}, ${parts.record} } from "../schemas/${table.name}.js";`,
    valueHelpers.size > 0 ? `import { ${[...valueHelpers].sort().join(", ")} } from "../values.js";` : undefined,
  ].filter((line) => line !== undefined);
}

/** How a database stores API values, as the table module's code writes them. */
export interface Dialect {
  /** The values.ts function that turns this field's API value into its stored form, if it needs one. */
  converter(field: Field): string | undefined;
  /** The stored form of the field's default, as code. */
  storedDefault(field: Field): string;
}

/** The stored value of an API value expression (absent and null become null). */
export function storedValue(dialect: Dialect, field: Field, value: string): string {
  const converter = dialect.converter(field);
  return converter ? `${converter}(${value})` : `${value} ?? null`;
}

/** The stored value on create: the field's default when absent. */
export function createValue(dialect: Dialect, field: Field): string {
  const value = `input.${field.name}`;
  const converter = dialect.converter(field);
  if (!field.default) return field.required && !converter ? value : storedValue(dialect, field, value);
  return `${value} === undefined ? ${dialect.storedDefault(field)} : ${converter ? `${converter}(${value})` : value}`;
}

/** The values.ts functions a table module writes with. */
export function writeHelpers(dialect: Dialect, table: Table): Set<string> {
  const helpers = new Set<string>();
  for (const field of table.fields) {
    const converter = dialect.converter(field);
    if (converter) helpers.add(converter);
    if (field.default?.kind === "now") helpers.add("storedNow");
  }
  return helpers;
}

/** A date-time default as the API's UTC seconds, `2024-01-31T12:00:00`, without a zone designator. */
export function defaultDateTime(value: string | number | boolean): string {
  return new Date(String(value)).toISOString().slice(0, 19);
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && seen.add(key(item)));
}
