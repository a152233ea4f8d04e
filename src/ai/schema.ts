import { z } from "zod";
import { fieldTypeSchema, manifestSchema } from "../manifest/schema.ts";

/**
 * The manifest as the model writes it: a JSON Schema for Chat Completions' strict structured
 * output, derived mechanically from the manifest's zod schema (the validator's own), and the
 * conversions between that form and the manifest.
 *
 * OpenAI's strict mode accepts only closed objects (`additionalProperties: false`) that list every
 * property in `required`, so the derivation
 * - turns each map (`tables`, `fields`, `queries`, `params`: a zod record) into an array of
 *   entries `{ name, ... }`: the value's own properties, or `{ name, type }` for a map of field
 *   types (`{ name, value }` for a map of any other scalar);
 * - keeps the object form of a union of a shorthand and an object (a field is `TEXT` or
 *   `{ type: TEXT, ... }`: the model always writes the object);
 * - lists every property as required and makes each optional one nullable
 *   (`anyOf: [..., { type: "null" }]`): null means "not set";
 * - leaves out the keys in OMITTED.
 */

export type JsonSchema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  [keyword: string]: unknown;
};

/**
 * Keys the model never writes: `renamedFrom`, and a field's name and rules per version, only matter
 * when an existing manifest evolves.
 */
export const OMITTED: ReadonlySet<string> = new Set(["renamedFrom", "names", "inVersions"]);

/** The key naming an entry of a map in the model's form. */
const NAME_KEY = "name";

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as JsonSchema;
  return rest;
}

/** The manifest's JSON Schema, as zod derives it from the validator's schema. */
const MANIFEST_JSON_SCHEMA: JsonSchema = jsonSchemaOf(manifestSchema);
const FIELD_TYPE_JSON_SCHEMA = jsonSchemaOf(fieldTypeSchema);

/** The JSON Schema of the model's answer (strict structured output). */
export const AI_JSON_SCHEMA: JsonSchema = strictSchema(MANIFEST_JSON_SCHEMA);

// ---------------------------------------------------------------------------------------------
// What a JSON Schema node is

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A zod record: an object of free keys whose values share one schema. */
function isMap(schema: JsonSchema): schema is JsonSchema & { additionalProperties: JsonSchema } {
  return schema.type === "object" && schema.properties === undefined && isPlainObject(schema.additionalProperties);
}

function isClosedObject(schema: JsonSchema): schema is JsonSchema & { properties: Record<string, JsonSchema> } {
  return schema.type === "object" && isPlainObject(schema.properties);
}

/** A union of scalars and one object is a shorthand (`TEXT`) and its full form: the object. */
function fullForm(schema: JsonSchema): JsonSchema | undefined {
  if (!schema.anyOf) return undefined;
  const objects = schema.anyOf.filter((branch) => isClosedObject(branch));
  const scalars = schema.anyOf.filter((branch) => branch.type !== "object" && branch.type !== "array");
  return objects.length === 1 && scalars.length === schema.anyOf.length - 1 ? objects[0] : undefined;
}

/**
 * A union of a list and a map is a list of labels and their map with settings (`versions`): a draft
 * of a new project takes the list; deprecating a version belongs to evolving one.
 */
function listForm(schema: JsonSchema): JsonSchema | undefined {
  if (schema.anyOf?.length !== 2) return undefined;
  const list = schema.anyOf.find((branch) => branch.type === "array");
  return list && schema.anyOf.some(isMap) ? list : undefined;
}

function sameSchema(a: JsonSchema, b: JsonSchema): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The key holding a scalar map value in an entry: `type` for a map of field types. */
function valueKey(value: JsonSchema): string {
  return sameSchema(value, FIELD_TYPE_JSON_SCHEMA) ? "type" : "value";
}

function described<T extends JsonSchema>(schema: T, description: string | undefined): T {
  return description === undefined ? schema : { description, ...schema };
}

// ---------------------------------------------------------------------------------------------
// Deriving the strict schema

function strictSchema(schema: JsonSchema): JsonSchema {
  const { description } = schema;
  if (isMap(schema)) {
    return described({ type: "array", items: entrySchema(schema.additionalProperties) }, description);
  }
  if (isClosedObject(schema)) return strictObject(schema, []);
  const full = fullForm(schema);
  if (full) return described(strictSchema(full), description ?? full.description);
  const list = listForm(schema);
  if (list) return described(strictSchema(list), description);
  if (schema.anyOf) return described({ anyOf: schema.anyOf.map(strictSchema) }, description);
  if (Array.isArray(schema.type)) {
    return described({ anyOf: schema.type.map((type) => ({ type })) }, description);
  }
  if (schema.type === "array" && schema.items) return { ...schema, items: strictSchema(schema.items) };
  return { ...schema };
}

/** A closed object, its properties after `leading` (already strict, always required). */
function strictObject(
  schema: JsonSchema & { properties: Record<string, JsonSchema> },
  leading: [string, JsonSchema][],
): JsonSchema {
  const required = new Set(schema.required ?? []);
  const own = Object.entries(schema.properties)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]): [string, JsonSchema] => {
      const strict = strictSchema(value);
      return [key, required.has(key) ? strict : nullable(strict)];
    });
  for (const [key] of leading) {
    if (own.some(([name]) => name === key)) throw new Error(`the manifest schema already has a property "${key}"`);
  }
  const properties = [...leading, ...own];
  return described(
    {
      type: "object",
      properties: Object.fromEntries(properties),
      required: properties.map(([key]) => key),
      additionalProperties: false,
    },
    schema.description,
  );
}

function entrySchema(value: JsonSchema): JsonSchema {
  const name: [string, JsonSchema] = [NAME_KEY, { type: "string" }];
  const full = fullForm(value) ?? value;
  if (isClosedObject(full)) return strictObject(full, [name]);
  return {
    type: "object",
    properties: { [NAME_KEY]: name[1], [valueKey(value)]: strictSchema(value) },
    required: [NAME_KEY, valueKey(value)],
    additionalProperties: false,
  };
}

function nullable(schema: JsonSchema): JsonSchema {
  const { description, ...rest } = schema;
  if (rest.anyOf) return described({ ...rest, anyOf: [...rest.anyOf, { type: "null" }] }, description);
  return described({ anyOf: [rest, { type: "null" }] }, description);
}

// ---------------------------------------------------------------------------------------------
// Converting between the two forms

export interface ConversionProblem {
  path: (string | number)[];
  message: string;
}

export interface Converted {
  /** The manifest in its own form (maps, no nulls); not validated yet. */
  manifest: unknown;
  /** What the manifest form cannot hold: entries without a name, names given twice. */
  problems: ConversionProblem[];
}

/**
 * The model's answer → the manifest: entry arrays become maps, nulls (unset options) are dropped.
 * Anything that does not fit the schema is passed through unchanged, for the validator to report.
 */
export function fromAiForm(answer: unknown): Converted {
  const problems: ConversionProblem[] = [];
  return { manifest: toManifest(MANIFEST_JSON_SCHEMA, answer, [], problems), problems };
}

function toManifest(
  schema: JsonSchema,
  value: unknown,
  path: (string | number)[],
  problems: ConversionProblem[],
): unknown {
  if (isMap(schema)) {
    if (!Array.isArray(value)) return value;
    const valueSchema = schema.additionalProperties;
    const full = fullForm(valueSchema) ?? valueSchema;
    const result: Record<string, unknown> = {};
    value.forEach((entry, index) => {
      const name = isPlainObject(entry) ? entry[NAME_KEY] : undefined;
      if (!isPlainObject(entry) || typeof name !== "string") {
        problems.push({ path: [...path, index], message: `must be an object with a "${NAME_KEY}"` });
        return;
      }
      if (Object.hasOwn(result, name)) {
        problems.push({ path: [...path, name], message: `duplicate name "${name}": each name must appear once` });
        return;
      }
      const { [NAME_KEY]: _name, ...rest } = entry;
      result[name] = isClosedObject(full)
        ? toManifest(full, rest, [...path, name], problems)
        : toManifest(valueSchema, rest[valueKey(valueSchema)], [...path, name], problems);
    });
    return result;
  }
  if (isClosedObject(schema)) {
    if (!isPlainObject(value)) return value;
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === null) continue;
      const property = schema.properties[key];
      result[key] = property ? toManifest(property, item, [...path, key], problems) : item;
    }
    return result;
  }
  if (schema.anyOf) {
    const branch = schema.anyOf.find((candidate) =>
      Array.isArray(value) ? candidate.type === "array" : isPlainObject(value) && candidate.type === "object",
    );
    return branch ? toManifest(branch, value, path, problems) : value;
  }
  if (schema.type === "array" && schema.items && Array.isArray(value)) {
    const items = schema.items;
    return value.map((item, index) => (item === null ? null : toManifest(items, item, [...path, index], problems)));
  }
  return value;
}

/**
 * A manifest → the model's form: the inverse of fromAiForm, for the system prompt's example (and
 * tests). Shorthands are written out in full and every unset option is null.
 */
export function toAiForm(manifest: unknown): unknown {
  return toAi(MANIFEST_JSON_SCHEMA, manifest);
}

function toAi(schema: JsonSchema, value: unknown): unknown {
  if (isMap(schema)) {
    if (!isPlainObject(value)) return value;
    const valueSchema = schema.additionalProperties;
    const full = fullForm(valueSchema) ?? valueSchema;
    return Object.entries(value).map(([name, item]) =>
      isClosedObject(full)
        ? { [NAME_KEY]: name, ...(toAi(valueSchema, item) as Record<string, unknown>) }
        : { [NAME_KEY]: name, [valueKey(valueSchema)]: toAi(valueSchema, item) },
    );
  }
  if (isClosedObject(schema)) {
    if (!isPlainObject(value)) return value;
    return Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([key]) => !OMITTED.has(key))
        .map(([key, property]) => [key, value[key] === undefined ? null : toAi(property, value[key])]),
    );
  }
  const full = fullForm(schema);
  if (full && !isPlainObject(value)) {
    // The shorthand: the scalar is the value of the full form's property of the same schema.
    const scalar = schema.anyOf!.find((branch) => branch !== full)!;
    const key = Object.entries(full.properties ?? {}).find(([, property]) => sameSchema(property, scalar))?.[0];
    return key === undefined ? value : toAi(full, { [key]: value });
  }
  if (full) return toAi(full, value);
  const list = listForm(schema);
  if (list) return Array.isArray(value) ? toAi(list, value) : value;
  if (schema.type === "array" && schema.items && Array.isArray(value)) {
    const items = schema.items;
    return value.map((item) => toAi(items, item));
  }
  return value;
}
