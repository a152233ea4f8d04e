import { waitingForLocks, type Db } from "./db.js";
import { apiDateTime } from "./values.js";

export type Row = Record<string, unknown>;

/** How a column's values are stored in SQLite, which has no boolean or date-time type. */
export type StoredKind = "boolean" | "datetime";

/**
 * A custom query's statement, prepared once. The columns the query check found to be BOOLEAN or
 * DATETIME (a field's, or computed: `max(due_at)`, `done = 1`) are converted like records' values;
 * a value that is not of the stored form (SQLite lets a computed column hold anything) is left as it is.
 */
export function prepareQuery(db: Db, sql: string, converted: Record<string, StoredKind>) {
  const statement = db.prepare<Record<string, unknown>, Row>(sql);
  if (!statement.readonly) throw new Error("a custom query must be read-only");
  const columns = Object.entries(converted);

  // `_primary`: a read that must see every write answered before it (X-Consistency: strong), which
  // SQLite's one database always does.
  const run = (params: Record<string, unknown>, _primary: boolean): Row[] => {
    const rows = statement.all(params);
    if (columns.length === 0) return rows;
    for (const row of rows) {
      for (const [name, kind] of columns)
        row[name] = kind === "boolean" ? queryBoolean(row[name]) : queryDateTime(row[name]);
    }
    return rows;
  };
  // It waits for a lock another process holds (rarely: WAL readers seldom need one) without holding the event loop.
  return waitingForLocks(db, { run }).run;
}

/** SQLite's truth values are numbers: any but 0 is true. */
function queryBoolean(value: unknown): unknown {
  return typeof value === "number" ? value !== 0 : value;
}

function queryDateTime(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return apiDateTime(value);
  } catch {
    return value; // not a date-time SQLite can read back
  }
}
