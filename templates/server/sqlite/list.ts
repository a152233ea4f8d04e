import type Database from "better-sqlite3";
import type { Db } from "./db.js";
import type { ListQuery, ListTable } from "./http/list.js";
import { listStatement, type ListDialect, type ListStatement, type Page } from "./list-sql.js";
import { storedBoolean, storedDateTime } from "./values.js";

const dialect: ListDialect = {
  param: () => "?",
  // tablegen_lower is JavaScript's toLowerCase (db.ts): SQLite's own lower() knows ASCII only.
  contains: (column, needle) => `instr(tablegen_lower(${column}), ${needle}) > 0`,
  stored: (kind, value) =>
    kind === "boolean"
      ? storedBoolean(value as boolean)
      : kind === "datetime"
        ? storedDateTime(value as string)
        : value,
  unlimited: " LIMIT -1",
};

/** Distinct statement shapes kept prepared per table; past it, the least recently made is dropped. */
const CACHE_SIZE = 200;

/**
 * A table's list queries: each distinct statement prepared once and kept, values always bound. Rows
 * come as arrays of the columns' values, in their order (raw), as the table's module reads them.
 */
export function listPages<Row>(db: Db, table: ListTable, columns: string) {
  const cache = new Map<string, Database.Statement<unknown[]>>();
  const prepared = (sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
      statement = db.prepare<unknown[]>(sql).raw();
      cache.set(sql, statement);
    }
    return statement;
  };
  // A query object used again (the whole table's first batch, a module constant) is built once.
  const built = new WeakMap<ListQuery, ListStatement>();
  const statementOf = (query: ListQuery) => {
    let statement = built.get(query);
    if (!statement) built.set(query, (statement = listStatement(table, columns, query, dialect)));
    return statement;
  };
  return (query: ListQuery): Page<Row> => {
    const { sql, values, count } = statementOf(query);
    const rows = prepared(sql).all(...values) as Row[];
    const more = query.limit !== undefined && rows.length > query.limit;
    if (more) rows.pop();
    if (!count) return { rows, more };
    const [total] = prepared(count.sql).get(...count.values) as [number];
    return { rows, more, total };
  };
}
