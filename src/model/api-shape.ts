import type { ApiShape } from "../runtime/api-keys.ts";
import type { Model } from "./types.ts";

/**
 * What the API serves, as key scopes are checked against it: its versions, and the versions of
 * each table and custom query. The server holds it (`api` of src/routes.ts) and `tablegen keys`
 * builds it from the manifest, so both refuse the same scopes.
 */
export function apiShape(model: Model): ApiShape {
  return {
    project: model.project,
    versions: model.versions,
    tables: Object.fromEntries(model.tables.map((table) => [table.name, table.versions])),
    queries: Object.fromEntries(model.queries.map((query) => [query.name, query.versions])),
  };
}
