import pg from "pg";
import type { Config } from "./config.js";

/** Values bound to a statement's parameters. */
export type StoredValues = (string | number | boolean | null)[];

/** A named statement, given the values to bind: each pooled connection prepares it once, on first use. */
export type Named = (values: unknown[]) => pg.QueryConfig;

/**
 * The statement `name` runs `text` as, bound to the values it is given. Every statement object is
 * made by this one literal, so all have one shape and pg reads them at full speed; a copy spread
 * from a shared one (`{ ...find, values }`) gets a hidden class of its own each time in V8, which
 * cost a show 7 % of its CPU.
 */
export function named(name: string, text: string): Named {
  return (values) => ({ name, text, values });
}

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const INT8 = 20;
const NUMERIC = 1700;

/** `2024-03-10 12:30:45` (a timestamp without a zone, or the part of one before its offset) as `2024-03-10T12:30:45Z`. */
const apiDateTime = (text: string) => `${text.slice(0, 10)}T${text.slice(11, 19)}Z`;

/**
 * A timestamptz as PostgreSQL writes it in the session's TimeZone (`2024-03-10 12:30:45+00`,
 * `2024-03-10 13:30:45.5+01`, `0001-01-01 05:53:28+05:53:28`, `10000-01-01 05:29:59+05:30`), as the
 * API's UTC `2024-03-10T12:30:45Z`. No session setting is relied on (a pooler shares server
 * connections between clients): the offset is read. In UTC, the common case, the text is only cut.
 */
const LOCAL = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.\d+)?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;
function apiInstant(text: string): string {
  if (text.endsWith("+00") && text.charAt(4) === "-") return apiDateTime(text);
  const local = LOCAL.exec(text);
  if (local === null) return apiDateTime(text);
  const [year, month, day, hours, minutes, seconds, , offsetHours, offsetMinutes, offsetSeconds] = local
    .slice(1)
    .map((part) => Number(part ?? 0)) as number[];
  const offset = (offsetHours! * 3600 + offsetMinutes! * 60 + offsetSeconds!) * (local[7] === "+" ? 1 : -1);
  // Set field by field: Date.UTC would read the years 0 to 99 as 1900 to 1999.
  const utc = new Date(0);
  utc.setUTCFullYear(year!, month! - 1, day!);
  utc.setUTCHours(hours!, minutes!, seconds! - offset);
  return `${utc.toISOString().slice(0, 19)}Z`;
}

/**
 * Rows arrive ready for JSON: date-times in the API's form, and 64-bit integers and numerics
 * (counts, sums) as numbers, as every other value the API returns. Bigint ids and references are
 * read as text by the statements themselves (`"id"::text`), or by a custom query's own parsers
 * (query.ts).
 */
export const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === TIMESTAMPTZ) return apiInstant;
    if (oid === TIMESTAMP) return apiDateTime;
    if (oid === INT8 || oid === NUMERIC) return Number;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/**
 * A connection behind a pooler in transaction mode (DATABASE_POOLER=transaction: PgBouncer,
 * Supabase's and Neon's poolers): each transaction may run on another server connection, where a
 * statement prepared by name on the last one does not exist (or another client's does). Every
 * statement, whoever makes it (the tables', the lists', the queries', a hook's own), runs unnamed:
 * parsed and planned at each run, as one round trip still.
 */
class UnnamedStatements extends pg.Client {
  override query(...args: unknown[]): never {
    const [statement] = args;
    if (typeof statement === "object" && statement !== null && "name" in statement && !("submit" in statement)) {
      const { name: _name, ...unnamed } = statement as pg.QueryConfig;
      args[0] = unnamed;
    }
    return (super.query as (...args: unknown[]) => never)(...args);
  }
}

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

/** How often each read replica's state and lag are read (in the background, never per request). */
const REPLICA_CHECK_MS = 1000;

/**
 * A replica's lag in milliseconds: none when it has replayed all the WAL it received (an idle
 * primary writes nothing, while the time since the last replayed transaction grows), else the age
 * of the last transaction it replayed. A server that is not in recovery (a primary) has none.
 */
const LAG = `SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn() THEN 0
  ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000, 0) END AS lag_ms`;

/** What the health route says of a database: serving; behind by more than REPLICA_MAX_LAG_MS; unreachable. */
export type DatabaseState = "up" | "lagging" | "down";

/** The lines a database's changes of state are logged with (the server's log, once it has one). */
interface StateLog {
  info(message: string): void;
  warn(message: string): void;
}

function openPool(url: string, config: Config): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: config.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
    // No startup `options` and no SET: a pooler refuses the first and shares the session of the
    // second with other clients. Date-times are read whatever the session's TimeZone (apiInstant);
    // doubles print their shortest exact digits by PostgreSQL's default (extra_float_digits 1, since 12).
    ...(config.pooler === "transaction" && { Client: UnnamedStatements }),
  });
  // A connection PostgreSQL ends (a restart, a failover, pg_terminate_backend, an idle timeout) is
  // reported as an 'error' event, idle in the pool or checked out between two statements; with no
  // listener it would end the process. The pool drops such a connection and opens new ones when
  // asked, and a request that was using it fails with a 503, so there is nothing more to do here.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/**
 * Runs a statement on a pooled connection. pg's own `pool.query` closes a connection after any
 * error; one that PostgreSQL answered (a constraint, a bad value) is still sound, so it goes back
 * to the pool with the statements it has prepared. pg is called with callbacks: under load, the
 * promises of its `client.query` keep every result alive past the young generation's collections
 * (the heap grows by each answer's rows until a full collection), which cost a list of 100 records
 * a quarter of its time.
 */
function run<Row extends pg.QueryResultRow>(pool: pg.Pool, statement: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
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
}

/**
 * A read replica (DATABASE_REPLICA_URLS): it serves reads while it answers and its lag is within
 * REPLICA_MAX_LAG_MS, read every REPLICA_CHECK_MS (lagging: two checks in a row beyond it); a change
 * of state is logged once, and a replica that was skipped serves again as soon as a check finds it back.
 */
function openReplica(url: string, index: number, config: Config) {
  const pool = openPool(url, config);
  const name = `replica ${index + 1}`;
  let log: StateLog | undefined;
  let checking = false;
  /** Checks in a row that found the replica further behind than REPLICA_MAX_LAG_MS. */
  let behind = 0;
  const replica = {
    name,
    pool,
    /** Unknown until the first check: reads go to the primary meanwhile. */
    state: undefined as DatabaseState | undefined,
    lagMs: undefined as number | undefined,
    set(state: DatabaseState, why: string) {
      const before = replica.state;
      replica.state = state;
      if (state === before) return;
      if (state === "up") {
        if (before !== undefined) log?.info(`${name} serves reads again`);
      } else {
        log?.warn(`${name} is skipped, the primary serves its reads: ${why}`);
      }
    },
    /** A read that failed as the replica became unreachable: skipped at once, until a check finds it back. */
    lost(error: Error) {
      replica.lagMs = undefined;
      replica.set("down", error.message || (error as { code?: string }).code || "unreachable");
    },
    async check() {
      if (checking) return;
      checking = true;
      try {
        const { rows } = await run<{ lag_ms: number }>(pool, { text: LAG });
        replica.lagMs = Math.round(rows[0]!.lag_ms);
        if (replica.lagMs <= config.replicaMaxLagMs) {
          behind = 0;
          replica.set("up", "");
        } else if (++behind >= 2) {
          // Two readings in a row: one alone may fall between a record's arrival and its replay (a
          // checkpoint's, say, carrying no transaction, while the last one replayed is old).
          replica.set(
            "lagging",
            `${replica.lagMs} ms behind, more than REPLICA_MAX_LAG_MS (${config.replicaMaxLagMs})`,
          );
        }
      } catch (error) {
        replica.lost(error as Error);
      } finally {
        checking = false;
      }
    },
    watch(to: StateLog) {
      log = to;
    },
  };
  return replica;
}

type Replica = ReturnType<typeof openReplica>;

/**
 * The database: a connection pool to the primary, and one to each read replica. The server keeps
 * no other state, so any number of copies can share a database.
 */
export function openDatabase(config: Config) {
  const trace = config.sqlLog ? traceSql : undefined;
  const pool = openPool(config.databaseUrl, config);
  const replicas: Replica[] = config.replicaUrls.map((url, index) => openReplica(url, index, config));
  const checks =
    replicas.length === 0
      ? undefined
      : setInterval(() => {
          for (const replica of replicas) void replica.check();
        }, REPLICA_CHECK_MS).unref();
  for (const replica of replicas) void replica.check();
  let turn = 0;
  const readFrom = <Row extends pg.QueryResultRow>(replica: Replica, statement: pg.QueryConfig) =>
    run<Row>(replica.pool, statement).catch((error: unknown) => {
      // A replica that stops answering mid-read: the primary answers this read, and the next ones.
      if (!isDatabaseUnavailable(error)) throw error;
      replica.lost(error as Error);
      return run<Row>(pool, statement);
    });
  return {
    pool,
    trace,
    /** Runs a statement on the primary: writes, and what must see them. */
    query<Row extends pg.QueryResultRow = pg.QueryResultRow>(statement: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
      trace?.(statement);
      return run<Row>(pool, statement);
    },
    /**
     * Runs a read: on the next serving replica in turn, or on the primary when there is none (none
     * configured, every one down or lagging) or when the request asks for its own writes (`primary`).
     */
    read<Row extends pg.QueryResultRow = pg.QueryResultRow>(
      statement: pg.QueryConfig,
      primary = false,
    ): Promise<pg.QueryResult<Row>> {
      trace?.(statement);
      if (!primary) {
        for (let tried = 0; tried < replicas.length; tried++) {
          const replica = replicas[turn++ % replicas.length]!;
          if (replica.state === "up") return readFrom<Row>(replica, statement);
        }
      }
      return run<Row>(pool, statement);
    },
    replicas,
    /** Where the replicas' changes of state are logged. */
    watch(log: StateLog) {
      for (const replica of replicas) replica.watch(log);
    },
    close: async () => {
      if (checks) clearInterval(checks);
      await Promise.all([pool.end(), ...replicas.map((replica) => replica.pool.end())]);
    },
  };
}

export type Db = ReturnType<typeof openDatabase>;

/** The primary's and each replica's state, as the health route answers it. */
export async function databaseHealth(db: Db) {
  let primary: DatabaseState = "up";
  try {
    await db.query({ text: "SELECT 1" });
  } catch {
    primary = "down";
  }
  return {
    primary,
    replicas: db.replicas.map(({ name, state, lagMs }) => ({
      name,
      state: state ?? "down",
      ...(lagMs !== undefined && { lagMs }),
    })),
  };
}

/** SQL_LOG=on: every statement the server runs, one line each on standard error, with its values. */
export function traceSql({ text, values }: pg.QueryConfig): void {
  process.stderr.write(`sql: ${text.replace(/\s+/g, " ").trim()}${values ? ` ${JSON.stringify(values)}` : ""}\n`);
}

export async function closeDatabase(db: Db): Promise<void> {
  await db.close();
}
