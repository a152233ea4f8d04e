import { invalid } from "./errors.js";
import type { ExpandTree, Related } from "./expand.js";
import { formats } from "./formats.js";
import { jsonNumber } from "./numbers.js";
import { unstorableText } from "./text.js";

/** How a table's values are exchanged, as its list filters and sorts read them. */
export type Kind = "float" | "integer" | "uuid" | "bigint" | "text" | "boolean" | "datetime";

/** A table as its list queries see it: every field's kind, id included. */
export interface ListTable {
  name: string;
  fields: Readonly<Record<string, Kind>>;
}

/** A list's query string as Fastify parses it: a parameter given twice is an array. */
export type ListQueryString = Record<string, string | string[]>;

export type Operator = "eq" | "ne" | "gt" | "gte" | "lt" | "lte" | "in" | "contains" | "null";

export interface Filter {
  field: string;
  operator: Operator;
  /** The API value (an array for `in`, a boolean for `null`). */
  value: unknown;
}

export interface ListQuery {
  filters: Filter[];
  sort: { field: string; descending: boolean }[];
  limit?: number;
  offset?: number;
  /** Keyset paging: records after this id in id order (before it when sorted by -id). */
  after?: string | number;
  count: boolean;
  /** The related records to embed in each record (`expand`). */
  expand?: ExpandTree;
  /** The whole table, in id order, though the query string names `expand`. */
  whole?: boolean;
}

export const MAX_LIMIT = 1000;

const ORDERED: ReadonlySet<Kind> = new Set(["float", "integer", "bigint", "text", "datetime"]);
const KIND_NAMES: Record<Kind, string> = {
  float: "a number",
  integer: "an integer",
  uuid: "a UUID",
  bigint: "a 64-bit integer",
  text: "text",
  boolean: "true or false",
  datetime: "a date-time with a time zone, like 2024-01-31T12:00:00Z",
};
/** Integers and number ids are 32-bit, as the database stores them. */
const MAX_INTEGER = 2_147_483_647;
const MIN_INTEGER = -2_147_483_648;
const FILTER = /^([a-z][a-z0-9_]*)\[([a-z]+)\]$/;

/**
 * A list request's query string as a list query, or undefined when it has no parameter (the whole
 * table, in id order). Every problem is reported at once, as one 400.
 */
export function parseListQuery(
  raw: Record<string, string | string[] | undefined>,
  table: ListTable,
  related?: Related,
): ListQuery | undefined {
  const names = Object.keys(raw);
  if (names.length === 0) return undefined;
  const problems: string[] = [];
  const query: ListQuery = { filters: [], sort: [], count: false };
  for (const name of names) {
    const given = raw[name];
    if (Array.isArray(given)) {
      problems.push(`${name} must be given once`);
      continue;
    }
    const text = given ?? "";
    switch (name) {
      case "limit": {
        const limit = jsonNumber(text);
        if (limit !== undefined && Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT) query.limit = limit;
        else problems.push(`limit must be an integer from 1 to ${MAX_LIMIT}`);
        break;
      }
      case "offset": {
        const offset = jsonNumber(text);
        if (offset !== undefined && Number.isSafeInteger(offset) && offset >= 0)
          query.offset = Math.abs(offset); // -0 as 0
        else problems.push("offset must be a whole number, 0 or more");
        break;
      }
      case "count":
        if (text === "true" || text === "false") query.count = text === "true";
        else problems.push("count must be true or false");
        break;
      case "after": {
        const id = parseValue(text, table.fields.id!);
        if (id === undefined) problems.push(`after must be ${KIND_NAMES[table.fields.id!]}`);
        else query.after = id as string | number;
        break;
      }
      case "sort":
        parseSort(text, table, query, problems);
        break;
      case "expand":
        if (related === undefined) problems.push("unknown parameter expand");
        else {
          const tree = related.parse(text, problems);
          if (tree !== undefined && tree.size > 0) query.expand = tree;
        }
        break;
      default:
        parseFilter(name, text, table, query, problems);
    }
  }
  if (query.after !== undefined) {
    const other = query.sort.find((order) => order.field !== "id");
    if (other) problems.push(`after pages in id order: it cannot be combined with sort on ${other.field}`);
    if (query.offset !== undefined) problems.push("after and offset cannot be combined");
  }
  if (problems.length > 0) throw invalid(problems);
  if (names.length === 1 && query.expand !== undefined) query.whole = true;
  return query;
}

function parseSort(text: string, table: ListTable, query: ListQuery, problems: string[]): void {
  for (const item of text.split(",")) {
    const descending = item.startsWith("-");
    const field = descending ? item.slice(1) : item;
    // Own fields only: `in` would find Object.prototype's names (constructor, toString, __proto__).
    if (!Object.hasOwn(table.fields, field)) problems.push(`unknown sort field ${field || "(empty)"}`);
    else if (query.sort.some((order) => order.field === field)) problems.push(`sort names ${field} twice`);
    else query.sort.push({ field, descending });
  }
}

function parseFilter(name: string, text: string, table: ListTable, query: ListQuery, problems: string[]): void {
  const match = FILTER.exec(name);
  const field = match ? match[1]! : name;
  const operator = (match ? match[2]! : "eq") as Operator;
  const kind = Object.hasOwn(table.fields, field) ? table.fields[field] : undefined;
  if (kind === undefined) {
    problems.push(`unknown parameter ${name}`);
    return;
  }
  const unstorable = kind === "text" ? unstorableText(name, text) : undefined;
  if (unstorable) {
    problems.push(unstorable);
    return;
  }
  const fits =
    operator === "eq" || operator === "ne" || operator === "in" || operator === "null"
      ? true
      : operator === "contains"
        ? kind === "text"
        : ["gt", "gte", "lt", "lte"].includes(operator)
          ? ORDERED.has(kind)
          : undefined;
  if (fits === undefined) {
    problems.push(`unknown operator ${name}: use ne, gt, gte, lt, lte, in, contains or null`);
    return;
  }
  if (!fits) {
    problems.push(`${name} does not apply to ${field}, which is ${KIND_NAMES[kind]}`);
    return;
  }
  if (operator === "null") {
    if (text === "true" || text === "false") query.filters.push({ field, operator, value: text === "true" });
    else problems.push(`${name} must be true or false`);
    return;
  }
  if (operator === "in") {
    const values = text.split(",").map((item) => parseValue(item, kind));
    if (values.some((value) => value === undefined))
      problems.push(`${name} must be a list of ${plural(kind)}, separated by commas`);
    else query.filters.push({ field, operator, value: values });
    return;
  }
  const value = operator === "contains" ? text : parseValue(text, kind);
  if (value === undefined) problems.push(`${name} must be ${KIND_NAMES[kind]}`);
  else query.filters.push({ field, operator, value });
}

const plural = (kind: Kind) =>
  kind === "boolean" ? "true or false values" : `${KIND_NAMES[kind].replace(/^an? /, "")}s`;

/** A query-string value as the API value of a kind, or undefined when it is not one. Numbers are read as JSON reads them. */
function parseValue(text: string, kind: Kind): unknown {
  switch (kind) {
    case "float":
      return jsonNumber(text);
    case "integer": {
      const value = jsonNumber(text);
      return value !== undefined && Number.isInteger(value) && value >= MIN_INTEGER && value <= MAX_INTEGER
        ? value
        : undefined;
    }
    case "uuid":
      return formats.uuid.test(text) ? text.toLowerCase() : undefined;
    case "bigint":
      // Kept as the digits: the database compares them as int8, never as a rounded JavaScript number.
      return formats.int64(text) ? BigInt(text).toString() : undefined;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : undefined;
    case "datetime":
      return formats["date-time"](text) ? text : undefined;
    default:
      return text;
  }
}

/** The URL of the next page: the same query, after the last record (id order) or at the next offset. */
export function nextPageUrl(url: string, query: ListQuery, lastId: unknown): string {
  const [path, search = ""] = url.split("?", 2) as [string, string?];
  const params = new URLSearchParams(search);
  if (query.offset === undefined && query.sort.every((order) => order.field === "id")) {
    params.set("after", String(lastId));
  } else {
    params.set("offset", String((query.offset ?? 0) + query.limit!));
  }
  return `${path}?${params.toString()}`;
}
