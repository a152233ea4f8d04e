import pg from "pg";
import { named, types, type Db, type Named } from "./db.js";
import { invalid } from "./http/errors.js";

export type Row = Record<string, unknown>;

/** PostgreSQL's class 22: a value that does not fit the type it is compared with or cast to. */
const DATA_EXCEPTION = "22";

/**
 * A custom query as a named prepared statement: each pooled connection prepares it once, the
 * first time it runs it; on a read replica, or the primary when the request asks (`primary`). Values arrive converted by the pool's type parsers (see db.ts).
 */
export function prepareQuery(db: Db, name: string, text: string, params: string[], bigints: string[] = []) {
  const statement: Named =
    bigints.length > 0 ? (values) => ({ name, text, values, types: int8AsText }) : named(name, text);
  return async (values: unknown[], primary: boolean): Promise<Row[]> => {
    try {
      const result = await db.read<Row>(statement(values), primary);
      if (bigints.length > 0) numbersBack(result, bigints);
      return result.rows;
    } catch (error) {
      if (!(error instanceof pg.DatabaseError) || !error.code?.startsWith(DATA_EXCEPTION)) throw error;
      const index = values.findIndex((value) => value !== null && error.message.includes(String(value)));
      throw invalid([`${params[index] ?? "a parameter"} is not valid for this query`]);
    }
  };
}

/** PostgreSQL's int8. */
const INT8 = 20;

/** The pool's parsers, but int8 as its digits: a query answering bigint ids reads them exactly. */
const int8AsText = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 ? (value: string) => value : types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The int8 columns of a query's rows that are no bigint id or reference (counts, sums) as numbers again. */
function numbersBack(result: pg.QueryResult<Row>, bigints: string[]): void {
  const numbers = result.fields
    .filter((field) => field.dataTypeID === INT8 && !bigints.includes(field.name))
    .map((field) => field.name);
  if (numbers.length === 0) return;
  for (const row of result.rows) {
    for (const name of numbers) if (row[name] !== null) row[name] = Number(row[name]);
  }
}
