import type { Db } from "./db.js";
import type { ListQuery, ListTable } from "./http/list.js";
import { listStatement, type ListDialect, type ListStatement, type Page } from "./list-sql.js";
import { storedDateTime } from "./values.js";

const dialect: ListDialect = {
  param: (position) => `$${position}`,
  contains: (column, needle) => `strpos(lower(${column}), ${needle}) > 0`,
  stored: (kind, value) => (kind === "datetime" ? storedDateTime(value as string) : value),
  unlimited: "",
};

/** Distinct statement shapes prepared by name per table; past it, statements run unnamed (planned each time). */
const CACHE_SIZE = 200;

/**
 * A table's list queries: each distinct statement a named prepared statement, values always bound;
 * read from a replica, or the primary when `primary` is asked.
 */
export function listPages<Row extends object>(db: Db, table: ListTable, columns: string) {
  const names = new Map<string, string>();
  const statement = (text: string, values: unknown[]) => {
    let name = names.get(text);
    if (name === undefined && names.size < CACHE_SIZE) names.set(text, (name = `${table.name}.list.${names.size + 1}`));
    return name === undefined ? { text, values } : { name, text, values };
  };
  // A query object used again (the whole table's first batch, a module constant) is built once.
  const built = new WeakMap<ListQuery, ListStatement>();
  const statementOf = (query: ListQuery) => {
    let statement = built.get(query);
    if (!statement) built.set(query, (statement = listStatement(table, columns, query, dialect)));
    return statement;
  };
  return async (query: ListQuery, primary = false): Promise<Page<Row>> => {
    const { sql, values, count } = statementOf(query);
    const rows = (await db.read<Row & Record<string, unknown>>(statement(sql, values), primary)).rows as Row[];
    const more = query.limit !== undefined && rows.length > query.limit;
    if (more) rows.pop();
    if (!count) return { rows, more };
    const { total } = (await db.read<{ total: number }>(statement(count.sql, count.values), primary)).rows[0]!;
    return { rows, more, total };
  };
}
