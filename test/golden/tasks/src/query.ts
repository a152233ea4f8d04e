import type { Db } from "./db.js";
import { STORED_KINDS } from "./columns.js";
import { apiBoolean, apiDateTime } from "./values.js";

export type Row = Record<string, unknown>;

/**
 * A custom query's statement, prepared once. Columns that come straight from a BOOLEAN or
 * DATETIME field (SQLite reports each column's origin) are converted like records' values;
 * computed columns keep their SQL value.
 */
export function prepareQuery(db: Db, sql: string) {
  const statement = db.prepare<Record<string, unknown>, Row>(sql);
  if (!statement.readonly) throw new Error("a custom query must be read-only");
  const converted = statement
    .columns()
    .map(({ name, table, column }) => ({ name, kind: STORED_KINDS[`${table}.${column}`] }))
    .filter((column) => column.kind !== undefined);

  return (params: Record<string, unknown>): Row[] => {
    const rows = statement.all(params);
    if (converted.length === 0) return rows;
    for (const row of rows) {
      for (const { name, kind } of converted) {
        const value = row[name] as string | number | null;
        row[name] = kind === "boolean" ? apiBoolean(value as number | null) : apiDateTime(value as string | null);
      }
    }
    return rows;
  };
}
