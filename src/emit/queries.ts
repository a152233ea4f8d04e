import type { Database } from "../manifest/schema.ts";
import { positionalSql } from "../manifest/sql.ts";
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

/** The bound value of a parameter: SQLite takes booleans as 0/1, PostgreSQL as booleans. */
function boundValue(param: QueryParam, database: Database): string {
  const value = `params.${param.name}`;
  switch (param.kind) {
    case "float":
    case "integer":
      return `Number(${value})`;
    case "boolean":
      return database === "sqlite" ? `Number(${value} === "true")` : `${value} === "true"`;
    case "datetime":
      return `storedDateTime(${value})`;
    default:
      return value;
  }
}

const WIDTH = 120;

/** A statement on one line when it fits the formatter's width at that indent, else broken. */
function fit(line: string, indent: number, broken: (line: string) => string): string {
  return indent + line.length <= WIDTH ? line : broken(line);
}

/** `src/queries/<query>.ts`: the statement, its parameters' schema and its route. */
export function emitQuery(query: Query, model: Model): string {
  const sqlite = model.database === "sqlite";
  const usesDateTime = query.params.some((param) => param.kind === "datetime");
  const order = query.params.map((param) => param.name);
  const sql = sqlite ? query.sql : positionalSql(query.sql, order);
  const bound = query.params.map((param) => boundValue(param, model.database));
  const call = sqlite
    ? `run({ ${query.params.map((param, index) => `${param.name}: ${bound[index]}`).join(", ")} })`
    : `run([${bound.join(", ")}])`;
  const found = sqlite ? "found(query(request.query))" : "found(await query(request.query))";
  return render("server/table/query.ts.hbs", {
    ...queryNames(query.name),
    query: query.name,
    project: model.project,
    sql: sql.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${"),
    prepare: sqlite
      ? "prepareQuery(db, SQL)"
      : `prepareQuery(db, "${query.name}", SQL, [${order.map((name) => `"${name}"`).join(", ")}])`,
    valuesImport: usesDateTime ? 'import { storedDateTime } from "../values.js";' : undefined,
    paramTypes: query.params.map((param) => `${param.name}: string;`),
    paramSchemas: query.params.map((param) => `${param.name}: ${paramSchema(param)},`),
    required: query.params.map((param) => `"${param.name}"`).join(", "),
    runner:
      query.params.length > 0
        ? fit(`(params: Params) => ${call}`, 9, (line) => line.replace("=> ", "=>\n    "))
        : `(_params: Params) => ${sqlite ? "run({})" : "run([])"}`,
    route: fit(
      `app.get<{ Querystring: Params }>("/${query.name}", { schema }, async (request) => ${found});`,
      2,
      (line) =>
        line.replace("async (request) => found(", "async (request) =>\n    found(").replace(/\)\);$/, "),\n  );"),
    ),
  });
}
