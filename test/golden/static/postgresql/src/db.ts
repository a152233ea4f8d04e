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

/** Records read at a time when a whole table is listed: each batch is a round trip to the database. */
export const LIST_BATCH = 1000;

/** How long a request waits for a connection (a new one, or a pooled one to come free) before a 503. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * Errors that mean the database cannot be reached now, rather than that a statement failed: the
 * server answers them with 503 and serves again as soon as connections succeed. By SQLSTATE
 * (connection exceptions, a server shutting down or starting, too many connections), by socket
 * error code, and by pg's own words for a connection that ended or could not be had in time.
 */
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;
const UNAVAILABLE_SOCKETS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
const UNAVAILABLE_WORDS = /^Connection terminated|timeout exceeded when trying to connect|is not queryable/;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_SOCKETS.has(code))) return true;
  return UNAVAILABLE_WORDS.test(error.message);
}

/**
 * Errors that mean a migration changed the database under the running server: a table or column
 * its statements name is gone (undefined_table, undefined_column), or a prepared statement's
 * columns changed type. The server answers them with 503 until it is regenerated.
 */
const SCHEMA_NEWER_STATES = new Set(["42P01", "42703"]);

export function isSchemaNewer(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return false;
  return (
    SCHEMA_NEWER_STATES.has(error.code ?? "") ||
    (error.code === "0A000" && error.message === "cached plan must not change result type")
  );
}

/** A connection pool; the server keeps no other state, so any number of copies can share a database. */
export function openDatabase(config: Config) {
  const trace = config.sqlLog ? traceSql : undefined;
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: config.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
    // Date-times in UTC; doubles printed with their shortest exact digits whatever the database's setting.
    options: "-c TimeZone=UTC -c extra_float_digits=1",
  });
  // A connection PostgreSQL ends (a restart, a failover, pg_terminate_backend, an idle timeout) is
  // reported as an 'error' event, idle in the pool or checked out between two statements; with no
  // listener it would end the process. The pool drops such a connection and opens new ones when
  // asked, and a request that was using it fails with a 503, so there is nothing more to do here.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return {
    pool,
    trace,
    /**
     * Runs a statement on a pooled connection. pg's own `pool.query` closes a connection after
     * any error; one that PostgreSQL answered (a constraint, a bad value) is still sound, so it
     * goes back to the pool with the statements it has prepared. pg is called with callbacks:
     * under load, the promises of its `client.query` keep every result alive past the young
     * generation's collections (the heap grows by each answer's rows until a full collection), which
     * cost a list of 100 records a quarter of its time.
     */
    query<Row extends pg.QueryResultRow = pg.QueryResultRow>(statement: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
      trace?.(statement);
      return new Promise((resolve, reject) => {
        pool.connect((connectError, client, release) => {
          if (connectError) return reject(connectError);
          client!.query<Row>(statement, (error, result) => {
            if (error) {
              const sound = error instanceof pg.DatabaseError && !isDatabaseUnavailable(error);
              release(sound ? undefined : error);
              reject(error);
            } else {
              release();
              resolve(result);
            }
          });
        });
      });
    },
  };
}

/** SQL_LOG=on: every statement the server runs, one line each on standard error, with its values. */
export function traceSql({ text, values }: pg.QueryConfig): void {
  process.stderr.write(`sql: ${text.replace(/\s+/g, " ").trim()}${values ? ` ${JSON.stringify(values)}` : ""}\n`);
}

export async function closeDatabase(db: Db): Promise<void> {
  await db.pool.end();
}
