import { existsSync } from "node:fs";
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
  return connect(file, config.busyTimeoutMs);
}

/**
 * A connection to the database file, set up as each of the server's connections is. A statement
 * that finds the file locked by another process (a migration, another cluster worker) retries for
 * `busyTimeoutMs`, then fails with SQLITE_BUSY (a 503).
 */
export function connect(file: string, busyTimeoutMs: number): Db {
  const db = new Database(file);
  db.pragma("foreign_keys = ON");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Case-insensitive list filters (contains): JavaScript's lower case, which SQLite's lower() is for ASCII only.
  db.function("tablegen_lower", { deterministic: true }, (value: unknown) =>
    typeof value === "string" ? value.toLowerCase() : value,
  );
  return db;
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

export function sqliteFile(url: string): string {
  if (!url.startsWith("file:")) throw new ConfigError(`DATABASE_URL must be a file: URL for SQLite, not "${url}"`);
  return url.slice("file:".length);
}

export async function closeDatabase(db: Db): Promise<void> {
  db.close();
}
