import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Database as DatabaseKind } from "../manifest/schema.ts";

/** The file of a SQLite URL, relative paths taken from the server's directory (where it runs). */
export function sqlitePath(url: string, outDir: string): string {
  const path = url.replace(/^file:/, "");
  return isAbsolute(path) ? path : resolve(outDir, path);
}

/**
 * Runs counting queries on the live database, read-only. A query that cannot run (the database
 * is missing, or a pending migration has not made the table yet) gives undefined: unknown.
 */
export function countRows(database: DatabaseKind, url: string, outDir: string, queries: string[]): (number | undefined)[] {
  if (database !== "sqlite") return queries.map(() => undefined);
  const file = sqlitePath(url, outDir);
  if (!existsSync(file)) return queries.map(() => undefined);
  const db = new Database(file, { readonly: true });
  try {
    return queries.map((sql) => {
      try {
        return Number((db.prepare(sql).get() as { n: number | bigint }).n);
      } catch {
        return undefined;
      }
    });
  } finally {
    db.close();
  }
}

/** WAL is a property of the database file: set once, after migrations, never by each server process. */
export function enableWal(url: string, outDir: string): void {
  const db = new Database(sqlitePath(url, outDir));
  db.pragma("journal_mode = WAL");
  db.close();
}

/**
 * Removes Prisma's records of migrations that failed: each ran in a transaction that was rolled
 * back, so the database is as it was and the history must say so. Returns their names.
 */
export function forgetFailedMigrations(database: DatabaseKind, url: string, outDir: string): string[] {
  if (database !== "sqlite") return [];
  const db = new Database(sqlitePath(url, outDir));
  try {
    const failed = "FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL";
    const names = db.prepare(`SELECT migration_name ${failed}`).pluck().all() as string[];
    db.prepare(`DELETE ${failed}`).run();
    return names;
  } finally {
    db.close();
  }
}
