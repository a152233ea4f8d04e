import type { Field, Table, ValueKind } from "../model/types.ts";
import { hasVersionedFields, isStoredShape, tableInVersion, type VersionField } from "../model/versions.ts";
import { TS_TYPES, tableNames, type TableNames } from "../targets/tables.ts";
import { templatePath } from "../targets/target.ts";
import { idValueKind } from "../model/build.ts";
import { FORMAT_PATTERNS } from "../runtime/formats.ts";

/** A JSON Schema (draft 2020-12, which OpenAPI 3.1 uses), as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

const JSON_TYPES = {
  float: "number",
  integer: "integer",
  uuid: "string",
  bigint: "string",
  text: "string",
  boolean: "boolean",
  datetime: "string",
} as const;

/** Largest id and integer the servers accept: a 32-bit signed integer, Prisma's Int. */
export const MAX_INT = 2147483647;

/**
 * The JSON Schemas of one table: the record the API answers, and the bodies of create and update.
 * The generated server compiles these objects (Fastify's validators and serializers, in
 * `src/schemas/<table>.ts`) and its OpenAPI documents embed the same objects, so the two cannot
 * disagree.
 */
export interface TableSchemas {
  record: JsonSchema;
  create: JsonSchema;
  update: JsonSchema;
}

export function tableSchemas(table: Table): TableSchemas {
  const fields = Object.fromEntries(table.fields.map((field) => [field.name, inputSchema(field)]));
  return {
    record: {
      type: "object",
      ...(table.description !== undefined && { description: table.description }),
      properties: {
        id: idSchema(table),
        ...Object.fromEntries(table.fields.map((field) => [field.name, recordSchema(field)])),
      },
      required: ["id", ...table.fields.map((field) => field.name)],
      additionalProperties: false,
    },
    create: {
      type: "object",
      properties: fields,
      required: table.fields
        .filter((field) => field.required && field.default === undefined)
        .map((field) => field.name),
      additionalProperties: false,
    },
    update: { type: "object", properties: fields, minProperties: 1, additionalProperties: false },
  };
}

/** A record's id: a positive 32-bit integer, a lowercase UUID, or a 64-bit integer as a string of digits. */
export function idSchema(table: Table): JsonSchema {
  if (table.id === "bigint") return { type: "string", format: "int64" };
  return table.id === "uuid" ? { type: "string", format: "uuid" } : { type: "integer", minimum: 1, maximum: MAX_INT };
}

/** The context of `schemas.ts.hbs`: record and input types, and the table's JSON Schemas. */
export interface SchemasContext extends TableNames {
  idType: "string" | "number";
  idKind: "uuid" | "bigint" | "integer";
  fields: {
    name: string;
    tsType: string;
    kind: ValueKind;
    required: boolean;
    /** Whether a create may leave it out. */
    optional: boolean;
    comment: string;
  }[];
  comment: string;
  schema: TableSchemas;
  /** Whether some version serves the table as it is stored: then the module has its route schemas. */
  storedServed: boolean;
  /** Each version's schemas and names, for a table whose versions differ. */
  versions?: VersionContext[];
}

/**
 * A version of a table some of whose versions differ from how it is stored: its schemas (the stored
 * shape's, or its own), its list table, its names (API name → stored name) and its defaults.
 */
export interface VersionContext extends Partial<TableSchemas> {
  version: string;
  stored: boolean;
  listTable?: { name: string; fields: Record<string, ValueKind> };
  fields: Record<string, string>;
  defaults: Record<string, unknown>;
}

export const SCHEMAS = templatePath<SchemasContext>("server/schemas.ts.hbs");

export function schemasContext(table: Table): SchemasContext {
  return {
    ...tableNames(table.name),
    idType: table.id === "number" ? "number" : "string",
    idKind: idValueKind(table),
    fields: table.fields.map((field) => ({
      name: field.name,
      tsType: TS_TYPES[field.kind],
      kind: field.kind,
      required: field.required,
      optional: !field.required || field.default !== undefined,
      comment: docComment(field.description),
    })),
    comment: docComment(table.description),
    schema: tableSchemas(table),
    // The stored shape's route schemas, unless every version of the table has its own.
    storedServed: table.versions.some((version) => isStoredShape(table, version)),
    ...(hasVersionedFields(table) && { versions: versionsContext(table) }),
  };
}

function versionsContext(table: Table): VersionContext[] {
  return table.versions.map((version) => {
    const view = tableInVersion(table, version);
    const names = {
      version,
      fields: { id: "id", ...Object.fromEntries(view.fields.map((field) => [field.name, field.column])) },
      defaults: Object.fromEntries(
        view.fields.flatMap((field) => {
          const kept = field.inVersions?.[version]?.default;
          return kept?.kind === "value" ? [[field.column, kept.value]] : [];
        }),
      ),
    };
    if (isStoredShape(table, version)) return { ...names, stored: true };
    return {
      ...names,
      stored: false,
      ...tableSchemas(view),
      listTable: {
        name: table.name,
        fields: { id: idValueKind(table), ...fieldKinds(view.fields) },
      },
    };
  });
}

function fieldKinds(fields: Field[]): Record<string, ValueKind> {
  return Object.fromEntries(fields.map((field) => [field.name, field.kind]));
}

/** Whether a field's stored column refuses null: for a field as a version has it, the stored column's rule. */
function storedRequired(field: Field): boolean {
  return "stored" in field ? (field as VersionField).stored.required : field.required;
}

/** A description as the text of a one-line doc comment (empty when there is none). */
function docComment(description: string | undefined): string {
  return (description ?? "").replace(/\s+/g, " ").replace(/\*\//g, "*\\/");
}

function jsonType(field: Field, required: boolean): string | string[] {
  const type = JSON_TYPES[field.kind];
  return required ? type : [type, "null"];
}

/** Formats of the contract, by their JSON Schema names (the server's validator checks each one). */
function format(field: Field): string | undefined {
  if (field.kind === "datetime") return "date-time";
  if (field.kind === "uuid") return "uuid";
  if (field.kind === "bigint") return "int64";
  if (field.type === "EMAIL") return "email";
  if (field.type === "PHONE") return "phone";
  return undefined;
}

/**
 * A field in a record the server answers: its type, and the formats the server produces by
 * construction (date-times as `YYYY-MM-DDTHH:MM:SSZ`, lowercase UUIDs, bigints as strings of digits).
 */
function recordSchema(field: Field): JsonSchema {
  return {
    // Null when the column holds null, whatever a version's create asks.
    type: jsonType(field, storedRequired(field)),
    ...((field.kind === "datetime" || field.kind === "uuid" || field.kind === "bigint") && { format: format(field) }),
    ...(field.description !== undefined && { description: field.description }),
  };
}

/** A field in a request body: what the server's validator accepts. */
function inputSchema(field: Field): JsonSchema {
  const fieldFormat = format(field);
  return {
    // Never null when the column refuses it, even where a version lets a create leave it out.
    type: jsonType(field, field.required || storedRequired(field)),
    ...(field.kind === "text" && (field.required || storedRequired(field)) && { minLength: 1 }),
    ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
    ...(fieldFormat !== undefined && { format: fieldFormat }),
    ...(field.kind === "integer" &&
      (field.relation ? { minimum: 1, maximum: MAX_INT } : { minimum: -MAX_INT - 1, maximum: MAX_INT })),
    ...(field.description !== undefined && { description: field.description }),
  };
}

/** A query-string value of a kind, as list filters read it (`src/http/list.ts` of the server). */
export function valueSchema(kind: ValueKind): JsonSchema {
  switch (kind) {
    case "float":
      return { type: "number" };
    case "integer":
      return { type: "integer", minimum: -MAX_INT - 1, maximum: MAX_INT };
    case "uuid":
      return { type: "string", format: "uuid" };
    case "bigint":
      return { type: "string", format: "int64", pattern: FORMAT_PATTERNS.int64 };
    case "boolean":
      return { type: "boolean" };
    case "datetime":
      return { type: "string", format: "date-time" };
    default:
      return { type: "string" };
  }
}
