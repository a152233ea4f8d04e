import { z } from "zod";

/**
 * The manifest's structure (CONTRACT.md §2), written once: the validator checks raw input
 * against it and the AI generator derives its JSON Schema from it.
 */

export const FIELD_TYPES = ["NUMBER", "TEXT", "EMAIL", "PHONE", "PARAGRAPH", "BOOLEAN", "DATETIME"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Default maxLength of the text-like types (CONTRACT.md §2); PARAGRAPH is unlimited. */
export const DEFAULT_MAX_LENGTH: Partial<Record<FieldType, number>> = { TEXT: 255, EMAIL: 254, PHONE: 32 };

export const ON_DELETE = ["restrict", "cascade", "setNull"] as const;
export type OnDelete = (typeof ON_DELETE)[number];

export const DATABASES = ["sqlite", "postgresql"] as const;
export type Database = (typeof DATABASES)[number];

export const PROJECT_NAME = /^[a-z][a-z0-9-]{0,62}$/;
export const IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;
export const VERSION_LABEL = /^v[0-9]+$/;

export const fieldTypeSchema = z.enum(FIELD_TYPES).describe("One of the seven field types");

export const fieldObjectSchema = z
  .object({
    type: fieldTypeSchema,
    required: z.boolean().optional().describe("The field must be given and not null"),
    unique: z.boolean().optional().describe("No two records may hold the same value"),
    default: z
      .union([z.string(), z.number(), z.boolean()])
      .optional()
      .describe('Value used when the field is absent on create; "now" for DATETIME'),
    maxLength: z.number().optional().describe("Longest text in characters (TEXT, EMAIL, PHONE, PARAGRAPH)"),
    integer: z.boolean().optional().describe("A NUMBER that holds whole numbers only"),
    references: z.string().optional().describe("Name of the table whose id this field holds"),
    onDelete: z.enum(ON_DELETE).optional().describe("What deleting the referenced record does"),
    renamedFrom: z.string().optional().describe("The field's previous name, so a migration keeps its data"),
    index: z.boolean().optional().describe("Index the field, for fast list filters and sorts on it"),
    description: z.string().optional().describe("What the field holds, for the API's documentation"),
  })
  .strict();

export const fieldSchema = z.union([fieldTypeSchema, fieldObjectSchema]);

export const tableSchema = z
  .object({
    id: z.enum(["number", "uuid"]).optional().describe("Kind of the implicit id: auto-increment number or uuid"),
    versions: z.array(z.string()).optional().describe("API versions that serve this table; default all"),
    renamedFrom: z.string().optional().describe("The table's previous name, so a migration keeps its data"),
    fields: z.record(z.string(), fieldSchema),
    indexes: z
      .array(z.array(z.string()))
      .optional()
      .describe("Composite indexes, each a list of the table's field names in order"),
    description: z.string().optional().describe("What the table holds, for the API's documentation"),
  })
  .strict();

export const querySchema = z
  .object({
    versions: z.array(z.string()).optional().describe("API versions that serve this query; default all"),
    params: z.record(z.string(), fieldTypeSchema).optional().describe("Query-string parameters, bound as :name"),
    sql: z.string().describe("One read-only SELECT or WITH statement"),
    description: z.string().optional().describe("What the query answers, for the API's documentation"),
  })
  .strict();

export const manifestSchema = z
  .object({
    project: z.string().describe("Project name, used as the first URL segment"),
    database: z.enum(DATABASES).optional(),
    versions: z.array(z.string()).optional().describe("API version labels such as v1, v2"),
    tables: z.record(z.string(), tableSchema),
    queries: z.record(z.string(), querySchema).optional(),
  })
  .strict();

export type RawField = z.infer<typeof fieldSchema>;
export type RawFieldObject = z.infer<typeof fieldObjectSchema>;
export type RawTable = z.infer<typeof tableSchema>;
export type RawQuery = z.infer<typeof querySchema>;
export type RawManifest = z.infer<typeof manifestSchema>;
