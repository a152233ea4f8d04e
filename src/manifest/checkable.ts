import type { Path } from "./load.ts";
import { IDENTIFIER, PROJECT_NAME, manifestSchema, type RawManifest } from "./schema.ts";
import { readSql } from "./sql.ts";

/**
 * The part of a manifest with problems whose custom queries can still be prepared against their
 * tables, so that one run reports a misspelt column beside the manifest's other problems:
 *
 * - each table whose name and id are sound, with its fields that have no problem (and whose
 *   reference, if any, is to such a table);
 * - each query with no problem of its own whose SQL names nothing left out (no table or field with
 *   a problem: the database's message about it would be a consequence, not the query's mistake).
 *
 * Versions, renames, indexes and descriptions play no part in a query's check and are left out.
 * Undefined when no query is left to check, or the database is not known.
 */
export function checkablePart(data: unknown, problemPaths: readonly Path[]): RawManifest | undefined {
  if (!isObject(data) || !isObject(data.queries)) return undefined;
  const startsWith = (path: Path, prefix: Path) => prefix.every((segment, index) => path[index] === segment);
  /** Whether a problem is at `target` itself, or within one of its `parts`. */
  const troubled = (target: Path, parts: readonly string[] = []) =>
    problemPaths.some(
      (path) =>
        (path.length === target.length && startsWith(path, target)) ||
        parts.some((part) => startsWith(path, [...target, part])),
    );
  if (troubled(["database"])) return undefined;

  const left = new Set<string>();
  const tables: Record<string, { id?: unknown; fields: Record<string, unknown> }> = {};
  for (const [name, table] of Object.entries(isObject(data.tables) ? data.tables : {})) {
    const path = ["tables", name];
    const unsound = troubled(path, ["id"]) || troubled([...path, "fields"]);
    if (!IDENTIFIER.test(name) || unsound || !isObject(table) || !isObject(table.fields)) {
      left.add(name);
      continue;
    }
    const fields: Record<string, unknown> = {};
    for (const [fieldName, field] of Object.entries(table.fields)) {
      if (!IDENTIFIER.test(fieldName) || troubled([...path, "fields", fieldName], COLUMN_OPTIONS)) left.add(fieldName);
      else fields[fieldName] = isObject(field) ? columnOnly(field) : field;
    }
    tables[name] = { ...(table.id !== undefined && { id: table.id }), fields };
  }
  // A reference to a table left out cannot be made: the field goes too.
  for (const table of Object.values(tables)) {
    for (const [fieldName, field] of Object.entries(table.fields)) {
      if (isObject(field) && typeof field.references === "string" && !Object.hasOwn(tables, field.references)) {
        delete table.fields[fieldName];
        left.add(fieldName);
      }
    }
  }

  const leftOut = new Set([...left].map((name) => name.toLowerCase()));
  const queries: Record<string, { sql: string; params?: unknown }> = {};
  for (const [name, query] of Object.entries(data.queries)) {
    const path = ["queries", name];
    if (
      !IDENTIFIER.test(name) ||
      troubled(path, ["sql", "params"]) ||
      !isObject(query) ||
      typeof query.sql !== "string"
    )
      continue;
    if (readSql(query.sql).names.some((word) => leftOut.has(word))) continue;
    queries[name] = { sql: query.sql, ...(query.params !== undefined && { params: query.params }) };
  }
  if (Object.keys(queries).length === 0) return undefined;

  const part = manifestSchema.safeParse({
    project: typeof data.project === "string" && PROJECT_NAME.test(data.project) ? data.project : "checked",
    ...(data.database !== undefined && { database: data.database }),
    tables,
    queries,
  });
  return part.success ? part.data : undefined;
}

/** The options of a field that make its column and its reference (not its versions, names, rename, index, text). */
const COLUMN_OPTIONS = ["type", "required", "unique", "default", "maxLength", "integer", "references", "onDelete"];

function columnOnly(field: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(field).filter(([option]) => COLUMN_OPTIONS.includes(option)));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
