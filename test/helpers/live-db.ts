import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { Database as DatabaseKind } from "../../src/manifest/schema.ts";
import { createDatabase } from "./pg-database.ts";

/** A test's own database, of either kind, with what tests need to look inside it. */
export interface LiveDatabase {
  database: DatabaseKind;
  /** DATABASE_URL as the generated server and tablegen take it. */
  url: string;
  exec(sql: string): Promise<void>;
  value(sql: string): Promise<unknown>;
  columns(table: string): Promise<string[]>;
}

/**
 * A fresh database: a SQLite file name (relative to the server directory `serverDir`, created by
 * the first migration) or a new database on the test run's PostgreSQL server.
 */
export async function liveDatabase(
  database: DatabaseKind,
  serverDir: string,
  postgresUrl: string,
): Promise<LiveDatabase> {
  if (database === "sqlite") return liveDatabaseAt(database, "file:./live.db", join(serverDir, "live.db"));
  return liveDatabaseAt(database, await createDatabase(postgresUrl, "live"));
}

/** The database at `url`; for SQLite, its file (by default the URL's path). */
export function liveDatabaseAt(database: DatabaseKind, url: string, file = url.slice("file:".length)): LiveDatabase {
  if (database === "sqlite") {
    const withDb = async <T>(work: (db: Database.Database) => T): Promise<T> => {
      const db = new Database(file);
      try {
        return work(db);
      } finally {
        db.close();
      }
    };
    return {
      database,
      url,
      exec: (sql) => withDb((db) => void db.exec(sql)),
      value: (sql) => withDb((db) => db.prepare(sql).pluck().get()),
      columns: (table) =>
        withDb((db) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name)),
    };
  }
  const withClient = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    database,
    url,
    exec: (sql) => withClient(async (client) => void (await client.query(sql))),
    value: (sql) => withClient(async (client) => Object.values((await client.query(sql)).rows[0] ?? {})[0]),
    columns: (table) =>
      withClient(async (client) =>
        (
          await client.query(
            "SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
            [table],
          )
        ).rows.map((row: { column_name: string }) => row.column_name),
      ),
  };
}
