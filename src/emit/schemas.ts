import type { Field, Table } from "../model/types.ts";
import { TS_TYPES, tableNames } from "../targets/tables.ts";

const JSON_TYPES = {
  float: "number",
  integer: "integer",
  uuid: "string",
  text: "string",
  boolean: "boolean",
  datetime: "string",
} as const;

/** Largest id and integer the servers accept: a 32-bit signed integer, Prisma's Int. */
const MAX_INT = 2147483647;

/** The context of `schemas.ts.hbs`: record and input types, and the JSON Schemas of requests and responses. */
export function schemasContext(table: Table) {
  return {
    ...tableNames(table.name),
    idType: table.id === "uuid" ? "string" : "number",
    idSchema: { type: table.id === "uuid" ? "string" : "integer" },
    idKind: table.id === "uuid" ? "uuid" : "integer",
    fields: table.fields.map((field) => ({
      name: field.name,
      tsType: TS_TYPES[field.kind],
      kind: field.kind,
      required: field.required,
      optional: !field.required || field.default !== undefined,
      recordSchema: { type: jsonType(field) },
      inputSchema: inputSchema(field),
    })),
    recordRequired: ["id", ...table.fields.map((field) => field.name)],
    createRequired: table.fields
      .filter((field) => field.required && field.default === undefined)
      .map((field) => field.name),
  };
}

function jsonType(field: Field): string | string[] {
  const type = JSON_TYPES[field.kind];
  return field.required ? type : [type, "null"];
}

/** The JSON Schema of a field in a request body. */
function inputSchema(field: Field): Record<string, unknown> {
  return {
    type: jsonType(field),
    ...(field.kind === "text" && field.required && { minLength: 1 }),
    ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
    ...(field.type === "EMAIL" && { format: "email" }),
    ...(field.type === "PHONE" && { format: "phone" }),
    ...(field.kind === "datetime" && { format: "datetime" }),
    ...(field.kind === "uuid" && { format: "uuid" }),
    ...(field.kind === "integer" &&
      (field.relation ? { minimum: 1, maximum: MAX_INT } : { minimum: -MAX_INT - 1, maximum: MAX_INT })),
  };
}
