import { openApiDocuments } from "../emit/openapi.ts";
import type { JsonSchema } from "../emit/schemas.ts";
import { tableExpansions, versionExpansions, type Expansion } from "../model/expansions.ts";
import type { Model } from "../model/types.ts";
import { tableInVersion } from "../model/versions.ts";
import type { ModelView, ProblemAt, RelationView, RouteView, TableView } from "./protocol.ts";
import type { LocatedProblem } from "../manifest/validate.ts";

/**
 * What the Data and API pages need of a model, from the pipeline's own functions: each table as
 * each version has it (`tableInVersion`, what the server validates), and each version's routes
 * from its OpenAPI document (`openApiDocuments`, what the server serves).
 */
export function modelView(model: Model): ModelView {
  const expansions = versionExpansions(model);
  const tables: TableView[] = model.tables.map((table) => ({
    name: table.name,
    id: table.id,
    ...(table.description !== undefined && { description: table.description }),
    versions: table.versions,
    fields: Object.fromEntries(
      table.versions.map((version) => [
        version,
        tableInVersion(table, version).fields.map((field) => ({
          name: field.name,
          column: field.column,
          type: field.type,
          kind: field.kind,
          required: field.required,
          unique: field.unique,
          ...(field.maxLength !== undefined && { maxLength: field.maxLength }),
          ...(field.default?.kind === "value" && { default: field.default.value }),
          ...(field.default?.kind === "now" && { default: "now" }),
          ...(field.relation && { references: field.relation.table }),
        })),
      ]),
    ),
    relations: Object.fromEntries(
      table.versions.map((version) => [
        version,
        expansions(table, version).map((expansion) => ({ ...relationView(expansion), field: expansion.key })),
      ]),
    ),
  }));
  const routes: Record<string, RouteView[]> = {};
  for (const [version, document] of openApiDocuments(model)) {
    const list: RouteView[] = [];
    for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, JsonSchema>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (typeof operation !== "object" || operation === null || !("operationId" in operation)) continue;
        const tags = operation.tags as string[] | undefined;
        list.push({
          method: method.toUpperCase(),
          path,
          operationId: String(operation.operationId),
          ...(typeof operation.summary === "string" && { summary: operation.summary }),
          deprecated: operation.deprecated === true,
          tag: tags?.[0] ?? "",
        });
      }
    }
    routes[version] = list;
  }
  return {
    project: model.project,
    database: model.database,
    versions: model.versions.map((label) => {
      const deprecation = model.deprecated[label];
      return deprecation ? { label, deprecated: deprecation } : { label };
    }),
    tables,
    queries: model.queries.map((query) => ({
      name: query.name,
      ...(query.description !== undefined && { description: query.description }),
      versions: query.versions,
      params: query.params.map(({ name, type }) => ({ name, type })),
      ...(query.columns && { columns: query.columns.map((column) => column.name) }),
    })),
    routes,
  };
}

/** The relations each table can expand, by table, as the generated servers' `expand` names them. */
export function relationsView(model: Model): Record<string, RelationView[]> {
  return Object.fromEntries(
    [...tableExpansions(model)].map(([table, expansions]) => [table, expansions.map(relationView)]),
  );
}

const relationView = ({ name, kind, table, field }: Expansion): RelationView => ({ name, kind, table, field });

/** The validator's problems as the page places them: at their paths (a problem without one goes to the page's list). */
export function problemsAt(located: readonly LocatedProblem[]): ProblemAt[] {
  return located.map(({ path, message, text, line, column }) => ({
    path: [...(path ?? [])],
    message: message ?? text,
    line,
    column,
  }));
}
