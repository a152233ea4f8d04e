import type { Query, QueryParam } from "../model/types.ts";
import { queryNames } from "../targets/tables.ts";
import type { Target } from "../targets/index.ts";
import { valueSchema } from "./schemas.ts";

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

/** The context of `query.ts.hbs`: the statement, its parameters' schema and its route. */
export function queryContext(query: Query, target: Target, project: string) {
  return {
    ...queryNames(query.name),
    query: query.name,
    project,
    async: target.async,
    sql: target.querySql(query).replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${"),
    usesDateTime: query.params.some((param) => param.kind === "datetime"),
    /** Text parameters are refused when the databases cannot store them alike (http/text.ts). */
    usesText: query.params.some((param) => param.kind === "text"),
    params: query.params.map((param) => ({ name: param.name, kind: param.kind, schema: paramSchema(param) })),
    paramNames: query.params.map((param) => param.name),
    required: query.params.map((param) => param.name),
  };
}
