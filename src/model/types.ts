import type { Database, FieldType, OnDelete } from "../manifest/schema.ts";

/**
 * The typed intermediate model: a validated manifest with every reference resolved, every
 * default filled in and every storage decision made. Emitters read only this.
 */
export interface Model {
  project: string;
  database: Database;
  versions: string[];
  /** The versions marked deprecated, by label. */
  deprecated: Record<string, Deprecation>;
  tables: Table[];
  queries: Query[];
}

/** A deprecated version: since when (a date, or only that it is), and the date from which it answers 410 Gone. */
export interface Deprecation {
  since?: string;
  sunset?: string;
}

/** `bigint`: PostgreSQL's int8, exchanged as a string of digits so that no client loses digits beyond 2^53. */
export type IdKind = "number" | "uuid" | "bigint";

/** How a value is held and exchanged: decides the JSON Schema, the Prisma type and the SQL. */
export type ValueKind = "float" | "integer" | "uuid" | "bigint" | "text" | "boolean" | "datetime";

export type PrismaScalar = "Int" | "BigInt" | "Float" | "String" | "Boolean" | "DateTime";

export interface Table {
  name: string;
  /** PascalCase name of the Prisma model, mapped to `name` with @@map. */
  modelName: string;
  renamedFrom?: string;
  /** The manifest's description, for the API's documentation. */
  description?: string;
  id: IdKind;
  versions: string[];
  fields: Field[];
  /** Composite indexes, each the field names it covers in order (single-field ones are `Field.index`). */
  indexes: string[][];
  /** Fields of other tables (or this one) that refer to this table's id. */
  referencedBy: Reference[];
}

export type FieldDefault = { kind: "now" } | { kind: "value"; value: string | number | boolean };

export interface Field {
  name: string;
  type: FieldType;
  kind: ValueKind;
  prismaType: PrismaScalar;
  required: boolean;
  unique: boolean;
  /** Indexed on its own: asked for with `index: true`, or a reference (neither database indexes those itself); a unique field already is. */
  index: boolean;
  default?: FieldDefault;
  /** Longest accepted text, in characters; absent when unlimited or not text. */
  maxLength?: number;
  renamedFrom?: string;
  description?: string;
  /** The manifest's example of a value, for the OpenAPI documents (derived there when absent). */
  example?: string | number | boolean;
  relation?: Relation;
  /** The versions whose records and inputs have the field; absent: every version of its table. */
  versions?: string[];
  /** The field's name in a version's API, where it is not its own. */
  names?: Record<string, string>;
  /** What a version keeps of an earlier requirement or default. */
  inVersions?: Record<string, VersionRule>;
}

/** A field's requirement or default as one version keeps it. */
export interface VersionRule {
  required?: boolean;
  default?: FieldDefault;
}

export interface Relation {
  /** The referenced table. */
  table: string;
  onDelete: OnDelete;
  /** Name of the Prisma relation field on the referring model. */
  fieldName: string;
  /** Name of the Prisma back-relation field on the referenced model. */
  backFieldName: string;
  /** Set when two relations join the same pair of models and Prisma needs them named. */
  relationName?: string;
  /** The manifest's name for the referenced record in `expand` (`as:`), if it gives one. */
  as?: string;
  /** The manifest's name for the referring records in the referenced table's `expand` (`reverse:`), if it gives one. */
  reverse?: string;
}

export interface Reference {
  table: string;
  field: string;
  onDelete: OnDelete;
}

export interface Query {
  name: string;
  description?: string;
  versions: string[];
  params: QueryParam[];
  sql: string;
  /**
   * The query's output columns in order, as its database describes them: learned by the CLI's
   * query check (src/cli/queries.ts), which prepares the query against the model's tables, and
   * attached with `withQueryColumns`. Absent when not learned: rows are then described as any object.
   */
  columns?: QueryColumn[];
}

/** An output column of a custom query, and the kind its values are answered as, when known. */
export interface QueryColumn {
  name: string;
  /** Absent when the database does not say (an expression only one database understands, a type no field has). */
  kind?: ValueKind;
}

export interface QueryParam {
  name: string;
  type: FieldType;
  kind: ValueKind;
}
