import pg from "pg";
import type { Db } from "./db.js";
import { invalid } from "./http/errors.js";

export type Row = Record<string, unknown>;

/** PostgreSQL's class 22: a value that does not fit the type it is compared with or cast to. */
const DATA_EXCEPTION = "22";

/**
 * A custom query as a named prepared statement: each pooled connection prepares it once, the
 * first time it runs it; on a read replica, or the primary when the request asks (`primary`). Values arrive converted by the pool's type parsers (see db.ts).
 */
export function prepareQuery(db: Db, name: string, text: string, params: string[]) {
  return async (values: unknown[], primary: boolean): Promise<Row[]> => {
    try {
      return (await db.read<Row>({ name, text, values }, primary)).rows;
    } catch (error) {
      if (!(error instanceof pg.DatabaseError) || !error.code?.startsWith(DATA_EXCEPTION)) throw error;
      const index = values.findIndex((value) => value !== null && error.message.includes(String(value)));
      throw invalid([`${params[index] ?? "a parameter"} is not valid for this query`]);
    }
  };
}
