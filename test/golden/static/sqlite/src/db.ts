import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { ConfigError, type Config } from "./config.js";

export type Db = Database.Database;

/** Stored values bound to a statement's named parameters. */
export type StoredValues = Record<string, string | number | null>;

/**
 * Opens the migrated SQLite database. WAL mode is set once, by `npm run migrate`; each
 * connection turns on foreign keys, relaxed syncing (safe under WAL) and a busy timeout.
 */
export function openDatabase(config: Config): Db {
  const file = sqliteFile(config.databaseUrl);
  if (!existsSync(file)) throw new ConfigError(`the database "${file}" does not exist: run "npm run migrate" first`);
  if (config.sqlLog) trace = (sql) => process.stderr.write(`sql: ${sql.replace(/\s+/g, " ").trim()}\n`);
  return connect(file, config.busyTimeoutMs);
}

/** SQL_LOG=on: told every statement each connection runs (SQLite's trace). */
let trace: ((sql: string) => void) | undefined;

/**
 * Records read at a time when a whole table is listed. Each batch is read on the event loop's
 * thread, so it is small (about a millisecond): other requests are answered between batches.
 */
export const LIST_BATCH = 250;

/** How long each connection's statements wait for a lock another process holds, by connection. */
const lockTimeouts = new WeakMap<Db, number>();

/**
 * A connection to the database file, set up as each of the server's connections is. It has no
 * busy timeout: SQLite would wait for another process's lock inside the statement, holding the
 * event loop, so every other request, for as long. A statement that finds the file locked fails
 * at once, and `waitingForLocks` tries it again later, for up to `busyTimeoutMs` (then a 503).
 */
export function connect(file: string, busyTimeoutMs: number): Db {
  const db = new Database(file, trace && { verbose: (sql) => trace!(String(sql)) });
  db.pragma("foreign_keys = ON");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 0");
  lockTimeouts.set(db, busyTimeoutMs);
  // Case-insensitive list filters (contains): JavaScript's lower case, which SQLite's lower() is for ASCII only.
  db.function("tablegen_lower", { deterministic: true }, (value: unknown) =>
    typeof value === "string" ? value.toLowerCase() : value,
  );
  return db;
}

/** How long a statement on this connection may wait for another process's lock. */
export const lockTimeout = (db: Db) => lockTimeouts.get(db) ?? 0;

/** The file locked by another process (a migration, another cluster worker, a hooked write's connection). */
const isLocked = (error: unknown) => error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY");

/** Milliseconds between tries while the lock is held: quick at first, then every 50 ms. */
const RETRY_MS = [1, 2, 5, 10, 20, 50];

/**
 * `work()` at once; when another process holds the lock it needs, tried again a little later, the
 * event loop serving other requests meanwhile, until the connection's busy timeout has passed: then
 * its SQLITE_BUSY error stands (a 503). Nothing is written by a try that found the file locked.
 */
export function unlocked<T>(db: Db, work: () => T): T | Promise<T> {
  try {
    return work();
  } catch (error) {
    if (!isLocked(error)) throw error;
    return tryAgain(work, error, Date.now() + lockTimeout(db));
  }
}

async function tryAgain<T>(work: () => T, error: unknown, deadline: number): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const wait = Math.min(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!, deadline - Date.now());
    if (wait <= 0) throw error;
    await sleep(wait);
    try {
      return work();
    } catch (next) {
      if (!isLocked(next)) throw next;
      error = next;
    }
  }
}

/** Operations as callers get them: each answers at once, or later when it had to wait for a lock. */
export type Waiting<Operations> = {
  [Name in keyof Operations]: Operations[Name] extends (...args: infer Args) => infer Result
    ? (...args: Args) => Result | Promise<Result>
    : Operations[Name];
};

/** A table's or query's operations, each waiting for another process's lock with the event loop free (`unlocked`). */
export function waitingForLocks<Operations extends object>(db: Db, operations: Operations): Waiting<Operations> {
  const waiting: Record<string, unknown> = {};
  for (const [name, operation] of Object.entries(operations)) {
    if (typeof operation !== "function") waiting[name] = operation;
    else
      waiting[name] = (...args: unknown[]) => {
        try {
          return operation(...args);
        } catch (error) {
          if (!isLocked(error)) throw error;
          return tryAgain(() => operation(...args), error, Date.now() + lockTimeout(db));
        }
      };
  }
  return waiting as Waiting<Operations>;
}

/**
 * Errors that mean the database cannot be used now, rather than that a statement failed: the file
 * locked by another process beyond the busy timeout, a full disk, an I/O error, a file that cannot
 * be opened. The server answers them with 503.
 */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|PROTOCOL)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  return error instanceof Database.SqliteError && UNAVAILABLE.test(error.code);
}

/**
 * Errors that mean a migration changed the database under the running server: a table or column
 * its statements name is gone. The server answers them with 503 until it is regenerated.
 */
const SCHEMA_NEWER = /^(no such (table|column): |table \S+ has no column named )/;

export function isSchemaNewer(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === "SQLITE_ERROR" && SCHEMA_NEWER.test(error.message);
}

export function sqliteFile(url: string): string {
  if (!url.startsWith("file:")) throw new ConfigError(`DATABASE_URL must be a file: URL for SQLite, not "${url}"`);
  return url.slice("file:".length);
}

export async function closeDatabase(db: Db): Promise<void> {
  db.close();
}
