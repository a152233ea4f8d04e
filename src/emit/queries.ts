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

const WIDTH = 120;

/** A statement on one line when it fits the formatter's width at that indent, else broken. */
function fit(line: string, indent: number, broken: (line: string) => string): string {
  return indent + line.length <= WIDTH ? line : broken(line);
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
    runner:
      query.params.length > 0
        ? fit(`(params: Params) => run({ ${query.params.map(binding).join(", ")} })`, 9, (line) => line.replace("=> ", "=>\n    "))
        : "(_params: Params) => run({})",
    route: fit(
      `app.get<{ Querystring: Params }>("/${query.name}", { schema }, async (request) => found(query(request.query)));`,
      2,
      (line) => line.replace("async (request) => found(", "async (request) =>\n    found(").replace(/\)\);$/, "),\n  );"),
    ),
  });
}
