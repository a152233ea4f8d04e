import pg from "pg";
import type { KeyEntry, RateLimit } from "./api-keys.js";
import { ConfigError } from "./config.js";
import { isDatabaseUnavailable, type Db } from "./db.js";

/** A key with a limit. */
export type LimitedKey = KeyEntry & { limit: RateLimit };

/** The counts of the requests of API_KEY_<NAME> keys that have a limit. */
export interface Limiter {
  /** Readies the counts (at start, once): their table, made when it is missing. */
  prepare(): Promise<void>;
  /**
   * Counts a request of a key: undefined while the key is within its limit in the current window,
   * else the seconds until the window ends (`Retry-After`).
   */
  hit(key: LimitedKey): Promise<number | undefined>;
}

/** The counts' table: an underscore keeps it apart from the manifest's tables, whose names start with a letter. */
const TABLE = '"_tablegen_rate_limits"';

/**
 * UNLOGGED: a count is written to no WAL (so its commit waits for no disk flush), is not
 * replicated, and is emptied after a crash, which at worst lets a key start its window again.
 */
const CREATE = `CREATE UNLOGGED TABLE IF NOT EXISTS ${TABLE} ("key" text PRIMARY KEY, "window" bigint NOT NULL, "hits" integer NOT NULL)`;

/**
 * One statement, its own transaction: `$3` more requests of the key in the current window of the
 * database's clock (the same for every process), the count started again when the window changed;
 * the key's count after them, and the seconds to the window's end.
 */
const HIT = `INSERT INTO ${TABLE} AS counter ("key", "window", "hits")
VALUES ($1, floor(extract(epoch FROM now()) / $2)::bigint, $3)
ON CONFLICT ("key") DO UPDATE SET
  "hits" = CASE WHEN counter."window" = excluded."window" THEN least(counter."hits", 2000000000) + $3 ELSE $3 END,
  "window" = excluded."window"
RETURNING "hits", ceil((counter."window" + 1) * $2 - extract(epoch FROM now()))::integer AS "retry_after"`;

const UNDEFINED_TABLE = "42P01";

/** The requests of a key waiting for their count, and whether a count of the key is being made. */
interface Queue {
  row: string;
  counting: boolean;
  waiting: { resolve: (retryAfter: number | undefined) => void; reject: (error: unknown) => void }[];
}

/**
 * Fixed windows (a `100/min` key: 100 requests in each minute of the database's clock), counted in
 * a table of the database, so that every server process sharing it counts against the same limit.
 *
 * A process makes at most one count of a key at a time: the requests of the key that arrive
 * meanwhile are counted together by the next statement, which adds as many hits at once; the n-th
 * of them is then the hit whose number the count gives, less those after it, so each request is
 * still let through or refused exactly as if counted alone, at one statement for many requests
 * under load, and with no two of a process's connections queuing on the key's row.
 *
 * Nothing depends on a connection's session: each count is one statement, unnamed (no prepared
 * statement kept on the connection), and the table is made in one transaction, so the counts work
 * the same behind PgBouncer in transaction mode. A key without a limit is never counted.
 */
export function openLimiter(db: Db, project: string): Limiter {
  const queues = new Map<KeyEntry, Queue>();
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
  const add = async (row: string, limit: RateLimit, hits: number) => {
    const statement = { text: HIT, values: [row, limit.seconds, hits] };
    try {
      return (await db.query<{ hits: number; retry_after: number }>(statement)).rows[0]!;
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNDEFINED_TABLE) throw error;
      await create();
      return (await db.query<{ hits: number; retry_after: number }>(statement)).rows[0]!;
    }
  };
  const count = (key: LimitedKey, queue: Queue) => {
    const waiting = queue.waiting;
    queue.waiting = [];
    queue.counting = true;
    add(queue.row, key.limit, waiting.length)
      .then(
        ({ hits, retry_after: retryAfter }) => {
          const first = hits - waiting.length + 1;
          waiting.forEach(({ resolve }, index) =>
            resolve(first + index <= key.limit.count ? undefined : Math.max(1, retryAfter)),
          );
        },
        (error: unknown) => waiting.forEach(({ reject }) => reject(error)),
      )
      .finally(() => {
        queue.counting = false;
        if (queue.waiting.length > 0) count(key, queue);
      });
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
    hit(key) {
      let queue = queues.get(key);
      if (queue === undefined) {
        queue = { row: `${project}/${key.name}/${key.limit.seconds}`, counting: false, waiting: [] };
        queues.set(key, queue);
      }
      const counted = new Promise<number | undefined>((resolve, reject) => queue.waiting.push({ resolve, reject }));
      if (!queue.counting) count(key, queue);
      return counted;
    },
  };
}
