import pg from "pg";
import type { Config } from "./config.js";

export type Db = ReturnType<typeof openDatabase>;

/** Values bound to a statement's parameters. */
export type StoredValues = (string | number | boolean | null)[];

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const INT8 = 20;
const NUMERIC = 1700;

/** `2024-03-10 12:30:45+00` (sessions run in UTC) as the API's `2024-03-10T12:30:45Z`. */
const apiDateTime = (text: string) => `${text.slice(0, 10)}T${text.slice(11, 19)}Z`;

/**
 * Rows arrive ready for JSON: date-times in the API's form, and 64-bit integers and numerics
 * (counts, sums) as numbers, as every other value the API returns.
 */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === TIMESTAMPTZ || oid === TIMESTAMP) return apiDateTime;
    if (oid === INT8 || oid === NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/** A connection pool; the server keeps no other state, so any number of copies can share a database. */
export function openDatabase(config: Config) {
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: config.poolSize,
    types,
    // Date-times in UTC; doubles printed with their shortest exact digits whatever the database's setting.
    options: "-c TimeZone=UTC -c extra_float_digits=1",
  });
  return {
    pool,
    /**
     * Runs a statement on a pooled connection. pg's own `pool.query` closes a connection after
     * any error; one that PostgreSQL answered (a constraint, a bad value) is still sound, so it
     * goes back to the pool with the statements it has prepared.
     */
    async query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
      statement: pg.QueryConfig,
    ): Promise<pg.QueryResult<Row>> {
      const client = await pool.connect();
      try {
        const result = await client.query<Row>(statement);
        client.release();
        return result;
      } catch (error) {
        client.release(error instanceof pg.DatabaseError ? undefined : (error as Error));
        throw error;
      }
    },
  };
}

export async function closeDatabase(db: Db): Promise<void> {
  await db.pool.end();
}
