import pg from "pg";
import type { RateLimit } from "./api-keys.js";
import { ConfigError } from "./config.js";
import { isDatabaseUnavailable, type Db } from "./db.js";

/** The counts of the requests of API_KEY_<NAME> keys that have a limit. */
export interface Limiter {
  /** Readies the counts (at start, once): their table, made when it is missing. */
  prepare(): Promise<void>;
  /**
   * Counts a request of a key: undefined while the key is within its limit in the current window,
   * else the seconds until the window ends (`Retry-After`).
   */
  hit(name: string, limit: RateLimit): Promise<number | undefined>;
}

/** The counts' table: an underscore keeps it apart from the manifest's tables, whose names start with a letter. */
const TABLE = '"_tablegen_rate_limits"';

/**
 * UNLOGGED: a count is written to no WAL (so a request's commit waits for no disk flush), is not
 * replicated, and is emptied after a crash, which at worst lets a key start its window again.
 */
const CREATE = `CREATE UNLOGGED TABLE IF NOT EXISTS ${TABLE} ("key" text PRIMARY KEY, "window" bigint NOT NULL, "hits" integer NOT NULL)`;

/**
 * One statement, its own transaction: the key's count in the current window of the database's
 * clock (the same for every process), started again when the window changed, and the seconds to
 * the window's end. Concurrent requests of a key queue on its row for this statement alone.
 */
const HIT = `INSERT INTO ${TABLE} AS counter ("key", "window", "hits")
VALUES ($1, floor(extract(epoch FROM now()) / $2)::bigint, 1)
ON CONFLICT ("key") DO UPDATE SET
  "hits" = CASE WHEN counter."window" = excluded."window" THEN least(counter."hits", 2147483646) + 1 ELSE 1 END,
  "window" = excluded."window"
RETURNING "hits", ceil((counter."window" + 1) * $2 - extract(epoch FROM now()))::integer AS "retry_after"`;

const UNDEFINED_TABLE = "42P01";

/**
 * Fixed windows (a `100/min` key: 100 requests in each minute of the database's clock), counted in
 * a table of the database, so that every server process sharing it counts against the same limit.
 * Nothing depends on a connection's session: each count is one statement, unnamed (no prepared
 * statement kept on the connection), and the table is made in one transaction, so the counts work
 * the same behind PgBouncer in transaction mode. A key without a limit is never counted.
 */
export function openLimiter(db: Db, project: string): Limiter {
  const create = async () => {
    const client = await db.pool.connect();
    try {
      await client.query("BEGIN");
      // Two processes starting at once would otherwise race to create the table.
      await client.query("SELECT pg_advisory_xact_lock(hashtext('tablegen_rate_limits'))");
      await client.query(CREATE);
      await client.query("COMMIT");
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  };
  const count = async (name: string, limit: RateLimit) => {
    const values = [`${project}/${name}/${limit.seconds}`, limit.seconds];
    const { rows } = await db.query<{ hits: number; retry_after: number }>({ text: HIT, values });
    const { hits, retry_after: retryAfter } = rows[0]!;
    return hits <= limit.count ? undefined : Math.max(1, retryAfter);
  };
  return {
    async prepare() {
      try {
        await create();
      } catch (error) {
        // A database that is not there yet: the first count makes the table.
        if (isDatabaseUnavailable(error)) return;
        const reason = error instanceof pg.DatabaseError ? error.message : String(error);
        throw new ConfigError(
          `cannot make the table ${TABLE} that counts the requests of keys with a limit: ${reason}`,
        );
      }
    },
    async hit(name, limit) {
      try {
        return await count(name, limit);
      } catch (error) {
        if ((error as { code?: unknown }).code !== UNDEFINED_TABLE) throw error;
        await create();
        return count(name, limit);
      }
    },
  };
}
