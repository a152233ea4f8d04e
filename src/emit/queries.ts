import type { Model, Query, QueryParam } from "../model/types.ts";
import { render } from "../templates.ts";
import { queryNames } from "./names.ts";

/** How a query-string parameter (always text) is checked and turned into a bound value. */
function paramSchema(param: QueryParam): string {
  switch (param.kind) {
    case "float":
      return `{ type: "string", pattern: "^-?\\\\d+(\\\\.\\\\d+)?$", description: "a number" }`;
    case "integer":
      return `{ type: "string", pattern: "^-?\\\\d+$", description: "an integer" }`;
    case "boolean":
      return `{ type: "string", enum: ["true", "false"], description: "true or false" }`;
    case "datetime":
      return `{ type: "string", format: "datetime" }`;
    default:
      return `{ type: "string" }`;
  }
}

function binding(param: QueryParam): string {
  const value = `params.${param.name}`;
  switch (param.kind) {
    case "float":
    case "integer":
      return `${param.name}: Number(${value})`;
    case "boolean":
      return `${param.name}: Number(${value} === "true")`;
    case "datetime":
      return `${param.name}: storedDateTime(${value})`;
    default:
      return `${param.name}: ${value}`;
  }
}

/** `src/queries/<query>.ts`: the statement, its parameters' schema and its route. */
export function emitQuery(query: Query, model: Model): string {
  const usesDateTime = query.params.some((param) => param.kind === "datetime");
  return render("server/table/query.ts.hbs", {
    ...queryNames(query.name),
    query: query.name,
    project: model.project,
    sql: query.sql.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${"),
    valuesImport: usesDateTime ? 'import { storedDateTime } from "../values.js";' : undefined,
    paramTypes: query.params.map((param) => `${param.name}: string;`),
    paramSchemas: query.params.map((param) => `${param.name}: ${paramSchema(param)},`),
    required: query.params.map((param) => `"${param.name}"`).join(", "),
    paramsArg: query.params.length > 0 ? "params" : "_params",
    bindings: query.params.map(binding).join(", "),
  });
}
