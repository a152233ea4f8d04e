import type { Query, QueryColumn, QueryParam } from "../model/types.ts";
import { queryNames, type QueryNames } from "../targets/tables.ts";
import type { Target } from "../targets/index.ts";
import { templatePath } from "../targets/target.ts";
import { valueSchema, type JsonSchema } from "./schemas.ts";

/** A number as JSON writes it (the pattern of the server's http/numbers.ts). */
const JSON_NUMBER = "^-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?$";

/** How a query-string parameter (always text) is checked before it is bound. */
function paramSchema(param: QueryParam): Record<string, unknown> {
  switch (param.kind) {
    // Read as a JSON body's numbers are (http/numbers.ts): `1e3` too.
    case "float":
      return { type: "string", pattern: JSON_NUMBER, description: "a number" };
    case "integer":
      return { type: "string", pattern: "^-?(0|[1-9]\\d*)$", description: "an integer" };
    case "boolean":
      return { type: "string", enum: ["true", "false"], description: "true or false" };
    case "datetime":
      return { type: "string", format: "date-time" };
    default:
      return { type: "string" };
  }
}

/**
 * A parameter's value as the OpenAPI document describes it: typed (`type: number`, not the text
 * that carries it), so that a client passes a number, which its query string writes as text of the
 * form paramSchema accepts.
 */
export function paramValueSchema(param: QueryParam): Record<string, unknown> {
  // A query's integer is bound as it is written: only the 32-bit bounds of fields do not apply.
  return param.kind === "integer" ? { type: "integer" } : valueSchema(param.kind);
}

/**
 * A custom query's row as the server answers it: its output columns in order, each typed by the
 * kind the query check learned for it (src/cli/queries.ts) and answered by the records' rules, and
 * null too (an outer join or an aggregate over no rows gives null whatever the column). The server
 * serializes rows with this schema and the OpenAPI documents describe them with it. A model whose
 * queries were not described has rows of any shape.
 */
export function queryRowSchema(query: Query): JsonSchema {
  if (!query.columns) return { type: "object", additionalProperties: true };
  return {
    type: "object",
    properties: Object.fromEntries(query.columns.map((column) => [column.name, columnSchema(column)])),
    required: query.columns.map((column) => column.name),
    additionalProperties: false,
  };
}

function columnSchema({ kind }: QueryColumn): JsonSchema {
  if (kind === undefined)
    return { description: "Any JSON value: the database gives this column no type of the API's." };
  // A computed integer (a count, a sum) is not bounded like a field's.
  const { type, ...rest } = kind === "integer" ? { type: "integer" } : valueSchema(kind);
  return { type: [type, "null"], ...rest };
}

/** The context of `query.ts.hbs`, and of its database's partials (`prepareQuery`, `runQuery`). */
export interface QueryContext extends QueryNames {
  query: string;
  project: string;
  /** The statement as the driver binds it, escaped for a template literal. */
  sql: string;
  usesDateTime: boolean;
  /** Text parameters are refused when the databases cannot store them alike (http/text.ts). */
  usesText: boolean;
  row: JsonSchema;
  /** Columns whose values a database may store in another form than the API's (SQLite: 0/1, text). */
  converted: Record<string, "boolean" | "datetime">;
  /** Columns taken straight from a bigint id or reference (PostgreSQL's int8), answered as strings of digits. */
  bigints: string[];
  params: { name: string; kind: QueryParam["kind"] }[];
  paramNames: string[];
  /** The route's query-string schema. */
  querystring: JsonSchema;
}

export const QUERY = templatePath<QueryContext>("server/query.ts.hbs");

export function queryContext(query: Query, target: Target, project: string): QueryContext {
  return {
    ...queryNames(query.name),
    query: query.name,
    project,
    sql: target.querySql(query).replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${"),
    usesDateTime: query.params.some((param) => param.kind === "datetime"),
    usesText: query.params.some((param) => param.kind === "text"),
    row: queryRowSchema(query),
    converted: Object.fromEntries(
      (query.columns ?? []).flatMap((column) =>
        column.kind === "boolean" || column.kind === "datetime" ? [[column.name, column.kind] as const] : [],
      ),
    ),
    bigints: (query.columns ?? []).filter((column) => column.kind === "bigint").map((column) => column.name),
    params: query.params.map((param) => ({ name: param.name, kind: param.kind })),
    paramNames: query.params.map((param) => param.name),
    querystring: {
      type: "object",
      properties: Object.fromEntries(query.params.map((param) => [param.name, paramSchema(param)])),
      required: query.params.map((param) => param.name),
      additionalProperties: false,
    },
  };
}
