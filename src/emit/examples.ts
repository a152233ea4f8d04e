import type { FieldType } from "../manifest/schema.ts";
import type { Field, Table, ValueKind } from "../model/types.ts";
import { isEmail } from "../runtime/formats.ts";
import { idValueKind } from "../model/build.ts";
import { MAX_INT } from "./schemas.ts";

/**
 * The examples of the OpenAPI documents: a value for every field, id and parameter that the server
 * accepts, so a tool that builds requests from a document alone (a contract-test generator, a mock
 * server, a client's playground) makes valid ones.
 *
 * They describe one server: it holds a first record in each table, the one the records' examples
 * describe, under id 1 (a uuid table's under `UUID_EXAMPLES[0]`), whose references are 1 too. A
 * create's example makes a second record beside it (its unique fields take a second value, so the
 * two do not collide); an update changes the first record to the values it has; a delete removes
 * the second record (id 2), not the first, which the other tables' records refer to.
 */

/** The uuid ids of the examples: the first record, then the second. */
export const UUID_EXAMPLES = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"] as const;

/** The first or the second record of the examples. */
export type Ordinal = 1 | 2;

/** The id of the first or second record of a table whose ids are of this kind. */
export function idExample(kind: "uuid" | "bigint" | "integer", ordinal: Ordinal): string | number {
  if (kind === "bigint") return String(ordinal);
  return kind === "uuid" ? UUID_EXAMPLES[ordinal - 1]! : ordinal;
}

/** The kind of id a reference field holds. */
const referenceKind = (field: Field) => (field.kind === "uuid" || field.kind === "bigint" ? field.kind : "integer");

/** The value of a field in the first record: the manifest's example, a reference's 1, the default, or one of its type's. */
export function fieldExample(field: Field): unknown {
  if (field.example !== undefined) return field.example;
  if (field.relation) return idExample(referenceKind(field), 1);
  if (field.default?.kind === "value") return field.default.value;
  return typeExample(field.type, field.kind, field.name, field.maxLength);
}

/**
 * The value of a field in a create's example. A unique field takes a value the first record does
 * not hold (an optional unique reference none, as the first record's is the only id sure to exist).
 */
export function createExample(field: Field): unknown {
  const first = fieldExample(field);
  if (!field.unique || first === undefined) return first;
  if (field.relation) return field.required ? idExample(referenceKind(field), 2) : null;
  return secondValue(field, first);
}

/** A value of a type, for a field or a query's parameter of that name. */
export function typeExample(type: FieldType, kind: ValueKind, name: string, maxLength?: number): unknown {
  switch (kind) {
    case "integer":
      return 1;
    case "float":
      return 1.5;
    case "boolean":
      return true;
    case "datetime":
      return "2024-01-31T12:00:00Z";
    case "uuid":
      return UUID_EXAMPLES[0];
    case "bigint":
      return "1";
  }
  const fits = (value: string) => maxLength === undefined || [...value].length <= maxLength;
  if (type === "EMAIL") return ["ada@example.com", "ada@ex.io", "a@b.co", "a@b.c"].find(fits);
  if (type === "PHONE") return ["+1 555 0100", "5550100"].find(fits);
  const text = `Example ${name.replace(/_/g, " ")}`;
  return maxLength === undefined ? text : [...text].slice(0, maxLength).join("");
}

/** Another value of the field than `first`, valid for it too. */
function secondValue(field: Field, first: unknown): unknown {
  if (typeof first === "boolean") return !first;
  if (typeof first === "number") {
    if (field.kind !== "integer") return first + 1;
    return first < MAX_INT ? first + 1 : first - 1;
  }
  const text = String(first);
  if (field.kind === "datetime") {
    const day = 24 * 60 * 60 * 1000;
    const instant = Date.parse(text);
    const next = new Date(instant + (instant + day <= Date.parse("9999-12-30T00:00:00Z") ? day : -day));
    return next.toISOString().replace(/\.000Z$/, "Z");
  }
  if (field.type === "EMAIL") {
    if (field.example === undefined && fitsIn(field, "grace@example.com")) return "grace@example.com";
    const at = text.lastIndexOf("@");
    return varied(text.slice(0, at), field, text.slice(at), isEmail);
  }
  if (field.type === "PHONE") {
    const last = text.search(/[0-9](?=[^0-9]*$)/);
    return `${text.slice(0, last)}${(Number(text[last]) + 1) % 10}${text.slice(last + 1)}`;
  }
  return varied(text, field, "", () => true);
}

/** `text` with `2` appended (before `suffix`), or its last character made another, to stay within maxLength. */
function varied(text: string, field: Field, suffix: string, valid: (value: string) => boolean): string {
  const longer = `${text}${field.type === "EMAIL" ? "" : " "}2${suffix}`;
  if (fitsIn(field, longer) && valid(longer)) return longer;
  const characters = [...text];
  const last = characters.pop();
  return `${characters.join("")}${last === "2" ? "3" : "2"}${suffix}`;
}

function fitsIn(field: Field, value: string): boolean {
  return field.maxLength === undefined || [...value].length <= field.maxLength;
}

/** The id of the first record of a table. */
export function tableIdExample(table: Table, ordinal: Ordinal = 1): string | number {
  return idExample(idValueKind(table), ordinal);
}
