import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { Database as DatabaseKind } from "../manifest/schema.ts";

/** The file of a SQLite URL, relative paths taken from the server's directory (where it runs). */
function sqlitePath(url: string, outDir: string): string {
  const path = url.replace(/^file:/, "");
  return isAbsolute(path) ? path : resolve(outDir, path);
}

/** A connection to the live database: SQLite (read-write only where asked) or PostgreSQL. */
interface Connection {
  /** The first column of the first row, or undefined when the statement cannot run. */
  value(sql: string): Promise<unknown>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  run(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** How the CLI reaches each database: its driver, and what a database needs once migrations are applied. */
interface Driver {
  connect(url: string, outDir: string, readonly: boolean): Promise<Connection | undefined>;
  afterMigrations(url: string, outDir: string): void;
}

const DRIVERS: Record<DatabaseKind, Driver> = {
  sqlite: {
    async connect(url, outDir, readonly) {
      const file = sqlitePath(url, outDir);
      if (!existsSync(file)) return undefined;
      // As long as the migrations themselves wait for a write in progress (src/runtime/sqlite-prisma-adapter.ts).
      const db = new Database(file, { readonly, timeout: 10_000 });
      return {
        value: async (sql) => db.prepare(sql).pluck().get(),
        rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
        run: async (sql) => {
          db.exec(sql);
        },
        close: async () => {
          db.close();
        },
      };
    },
    // WAL is a property of a SQLite file: set once, after migrations, never by each server process.
    afterMigrations(url, outDir) {
      const db = new Database(sqlitePath(url, outDir));
      db.pragma("journal_mode = WAL");
      db.close();
    },
  },
  postgresql: {
    async connect(url) {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
      } catch {
        return undefined;
      }
      return {
        value: async (sql) => Object.values((await client.query(sql)).rows[0] ?? {})[0],
        rows: async (sql) => (await client.query(sql)).rows,
        run: async (sql) => void (await client.query(sql)),
        close: () => client.end(),
      };
    },
    afterMigrations() {},
  },
};

const connect = (database: DatabaseKind, url: string, outDir: string, readonly: boolean) =>
  DRIVERS[database].connect(url, outDir, readonly);

/**
 * Runs counting queries on the live database, read-only. A query that cannot run (the database
 * is unreachable, or a pending migration has not made the table yet) gives undefined: unknown.
 */
export async function countRows(
  database: DatabaseKind,
  url: string,
  outDir: string,
  queries: string[],
): Promise<(number | undefined)[]> {
  const connection = await connect(database, url, outDir, true);
  if (!connection) return queries.map(() => undefined);
  try {
    const counts: (number | undefined)[] = [];
    for (const sql of queries) counts.push(await connection.value(sql).then(Number, () => undefined));
    return counts;
  } finally {
    await connection.close();
  }
}

/**
 * Removes Prisma's records of migrations that started and never finished: each ran in a transaction
 * that was rolled back (it failed, or its process was killed before the end: a migration marks its
 * row finished inside its transaction, see Target.recordFinished), so the database is as it was
 * before it and the history must say so. Returns their names; none when the database or its history
 * does not exist yet.
 */
export async function forgetFailedMigrations(database: DatabaseKind, url: string, outDir: string): Promise<string[]> {
  const connection = await connect(database, url, outDir, false);
  if (!connection) return [];
  try {
    const failed = "FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL";
    const rows = await connection.rows(`SELECT migration_name ${failed} ORDER BY migration_name`).catch(() => []);
    const names = rows.map((row) => String(row.migration_name));
    // Nothing to forget needs no write (on SQLite, a write would wait for whatever holds the lock).
    if (names.length > 0) await connection.run(`DELETE ${failed}`);
    return names;
  } finally {
    await connection.close();
  }
}

/**
 * The migrations the live database has applied (finished), oldest first; undefined when the
 * database cannot be reached or holds no migration history yet.
 */
export async function appliedMigrations(
  database: DatabaseKind,
  url: string,
  outDir: string,
): Promise<string[] | undefined> {
  const connection = await connect(database, url, outDir, true);
  if (!connection) return undefined;
  try {
    const rows = await connection
      .rows("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name")
      .catch(() => undefined);
    return rows?.map((row) => String(row.migration_name));
  } finally {
    await connection.close();
  }
}

/** What the database needs once migrations are applied (SQLite: WAL mode). */
export function afterMigrations(database: DatabaseKind, url: string, outDir: string): void {
  DRIVERS[database].afterMigrations(url, outDir);
}
