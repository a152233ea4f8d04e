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

const literalSchema = z.union([z.string(), z.number(), z.boolean()]);

export const versionRuleSchema = z
  .object({
    required: z.boolean().optional().describe("Whether a create in this version must give the field"),
    default: literalSchema.optional().describe("Value a create in this version takes when it leaves the field out"),
  })
  .strict();

export const versionPolicySchema = z
  .object({
    deprecated: z
      .union([z.boolean(), z.string()])
      .optional()
      .describe("The version is deprecated: true, or the date it was (YYYY-MM-DD)"),
    sunset: z
      .string()
      .optional()
      .describe("The date from which every request to the version is answered 410 Gone (YYYY-MM-DD)"),
  })
  .strict();

export const fieldObjectSchema = z
  .object({
    type: fieldTypeSchema,
    required: z.boolean().optional().describe("The field must be given and not null"),
    unique: z.boolean().optional().describe("No two records may hold the same value"),
    default: literalSchema.optional().describe('Value used when the field is absent on create; "now" for DATETIME'),
    maxLength: z.number().optional().describe("Longest text in characters (TEXT, EMAIL, PHONE, PARAGRAPH)"),
    integer: z.boolean().optional().describe("A NUMBER that holds whole numbers only"),
    references: z.string().optional().describe("Name of the table whose id this field holds"),
    onDelete: z.enum(ON_DELETE).optional().describe("What deleting the referenced record does"),
    as: z
      .string()
      .optional()
      .describe("The name `expand` embeds the referenced record under; default the field's name without _id"),
    reverse: z
      .string()
      .optional()
      .describe(
        "The name `expand` embeds the records referring to one under, on the referenced table; default this table's name",
      ),
    renamedFrom: z.string().optional().describe("The field's previous name, so a migration keeps its data"),
    index: z.boolean().optional().describe("Index the field, for fast list filters and sorts on it"),
    description: z.string().optional().describe("What the field holds, for the API's documentation"),
    example: literalSchema
      .optional()
      .describe("A value the field may hold, for the API's documentation and the tools that read it"),
    versions: z
      .array(z.string())
      .optional()
      .describe("API versions whose records and inputs have the field; default all"),
    names: z
      .record(z.string(), z.string())
      .optional()
      .describe("The field's name in the API of a version, by version (stored once under its own name)"),
    inVersions: z
      .record(z.string(), versionRuleSchema)
      .optional()
      .describe("What a version keeps of an earlier requirement or default of the field, by version"),
  })
  .strict();

export const fieldSchema = z.union([fieldTypeSchema, fieldObjectSchema]);

export const tableSchema = z
  .object({
    id: z
      .enum(["number", "uuid", "bigint"])
      .optional()
      .describe(
        "Kind of the implicit id: auto-increment number, uuid, or bigint (PostgreSQL only: a 64-bit auto-increment id the API exchanges as a string of digits)",
      ),
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
    versions: z
      .union([z.array(z.string()), z.record(z.string(), versionPolicySchema)])
      .optional()
      .describe("API version labels such as v1, v2; or a map of them to their deprecation"),
    tables: z.record(z.string(), tableSchema),
    queries: z.record(z.string(), querySchema).optional(),
  })
  .strict();

export type RawField = z.infer<typeof fieldSchema>;
export type RawFieldObject = z.infer<typeof fieldObjectSchema>;
export type RawTable = z.infer<typeof tableSchema>;
export type RawVersionRule = z.infer<typeof versionRuleSchema>;
export type RawVersionPolicy = z.infer<typeof versionPolicySchema>;
export type RawQuery = z.infer<typeof querySchema>;
export type RawManifest = z.infer<typeof manifestSchema>;

/** The version labels of a manifest, in order, whichever form `versions` takes. */
export function versionLabels(versions: RawManifest["versions"]): string[] {
  if (versions === undefined) return ["v1"];
  return Array.isArray(versions) ? versions : Object.keys(versions);
}
