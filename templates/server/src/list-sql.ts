import type { Kind, ListQuery, ListTable } from "./http/list.js";

/** What differs between databases in a list statement: parameters, text search, stored values. */
export interface ListDialect {
  param(position: number): string;
  /** A case-insensitive "contains" of a lower-cased needle. */
  contains(column: string, needle: string): string;
  /** The bound value of an API value of a kind. */
  stored(kind: Kind, value: unknown): unknown;
  /** What an OFFSET without a LIMIT needs before it. */
  unlimited: string;
}

/** A page of rows, and what the route answers beside them. */
export interface Page<Row> {
  rows: Row[];
  /** Whether records follow the page (it was cut by its limit). */
  more: boolean;
  total?: number;
}

export interface ListStatement {
  /** The page's statement; it reads one record more than the limit, to tell whether more follow. */
  sql: string;
  values: unknown[];
  /** The count of every record the filters match, when asked for. */
  count?: { sql: string; values: unknown[] };
}

const quote = (name: string) => `"${name}"`;
const COMPARISONS = { eq: "=", ne: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;

/**
 * A list query as SQL: every value bound, never spliced; names come from the table's own fields
 * (the query was checked against them). Ordered by the sort fields, then by id, so pages are stable;
 * nulls sort last ascending and first descending on both databases.
 */
export function listStatement(
  table: ListTable,
  columns: string,
  query: ListQuery,
  dialect: ListDialect,
): ListStatement {
  const values: unknown[] = [];
  const bind = (kind: Kind, value: unknown) => {
    values.push(dialect.stored(kind, value));
    // A bigint (PostgreSQL's) is bound as its digits and compared as int8, never as a rounded number.
    return kind === "bigint" ? `${dialect.param(values.length)}::int8` : dialect.param(values.length);
  };
  // A bigint column is returned as text under its own name: ordered by the table's column, as a number.
  const sorted = (field: string) =>
    table.fields[field] === "bigint" ? `${quote(table.name)}.${quote(field)}` : quote(field);
  const conditions = query.filters.map(({ field, operator, value }) => {
    const column = quote(field);
    const kind = table.fields[field]!;
    switch (operator) {
      case "null":
        return `${column} IS ${value ? "" : "NOT "}NULL`;
      case "in":
        return `${column} IN (${(value as unknown[]).map((item) => bind(kind, item)).join(", ")})`;
      case "contains":
        return dialect.contains(column, bind("text", String(value).toLowerCase()));
      default:
        return `${column} ${COMPARISONS[operator]} ${bind(kind, value)}`;
    }
  });
  const where = (extra: string[]) => {
    const all = [...conditions, ...extra];
    return all.length > 0 ? ` WHERE ${all.join(" AND ")}` : "";
  };
  const from = `FROM ${quote(table.name)}`;
  const count = query.count ? { sql: `SELECT count(*) AS total ${from}${where([])}`, values: [...values] } : undefined;

  const backwards = query.sort[0]?.field === "id" && query.sort[0].descending;
  const keyset =
    query.after === undefined ? [] : [`"id" ${backwards ? "<" : ">"} ${bind(table.fields.id!, query.after)}`];
  const order = query.sort.map(({ field, descending }) =>
    field === "id"
      ? `${sorted("id")}${descending ? " DESC" : ""}`
      : `${sorted(field)} ${descending ? "DESC NULLS FIRST" : "ASC NULLS LAST"}`,
  );
  if (!query.sort.some((item) => item.field === "id")) order.push(sorted("id"));
  let sql = `SELECT ${columns} ${from}${where(keyset)} ORDER BY ${order.join(", ")}`;
  if (query.limit !== undefined) sql += ` LIMIT ${bind("integer", query.limit + 1)}`;
  if (query.offset !== undefined) {
    sql += `${query.limit === undefined ? dialect.unlimited : ""} OFFSET ${bind("integer", query.offset)}`;
  }
  return { sql, values, ...(count && { count }) };
}
