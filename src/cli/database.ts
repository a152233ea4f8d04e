import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import Database from "better-sqlite3";
import type { Database as DatabaseKind } from "../manifest/schema.ts";
import type { DescribedColumn } from "../targets/target.ts";
import { describedCache, type Described } from "./described-cache.ts";
import { writeAtomically } from "./writer.ts";

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

/** An empty database of a kind, holding only the model's tables, in which custom queries are prepared. */
export interface ScratchDatabase {
  /**
   * The output columns of one of the queries the database was made for, prepared and not run;
   * throws the database's message when it refuses it.
   */
  describe(sql: string): Promise<DescribedColumn[]>;
  close(): Promise<void>;
}

/** pg's client, loaded when a command first reaches PostgreSQL: a SQLite project's commands never load it. */
const postgresClient = async () => (await import("pg")).default.Client;

/**
 * How the CLI reaches each database: its driver, what a database needs once migrations are
 * applied, and a scratch database made of the given statements (no server needed).
 */
interface Driver {
  connect(url: string, outDir: string, readonly: boolean): Promise<Connection | undefined>;
  /** Whether the URL leads through a connection pooler that shares server sessions (which migrations cannot go through). */
  pooled(url: string): Promise<boolean>;
  afterMigrations(url: string, outDir: string): void;
  /** The adapter Prisma's migration engine reaches the database through (the servers' own, src/runtime/). */
  migrationAdapter(url: string, outDir: string): Promise<SqlMigrationAwareDriverAdapterFactory>;
  scratch(schema: string, queries: string[]): Promise<ScratchDatabase>;
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
    pooled: async () => false,
    migrationAdapter: async (url, outDir) =>
      (await import("../runtime/sqlite-prisma-adapter.ts")).migrationAdapter(`file:${sqlitePath(url, outDir)}`),
    // WAL is a property of a SQLite file: set once, after migrations, never by each server process.
    afterMigrations(url, outDir) {
      const db = new Database(sqlitePath(url, outDir));
      db.pragma("journal_mode = WAL");
      db.close();
    },
    // In memory; SQLite names the table column each output column is taken from.
    async scratch(schema) {
      const db = new Database(":memory:");
      db.exec(schema);
      return {
        describe: async (sql) => db.prepare(sql).columns(),
        close: async () => void db.close(),
      };
    },
  },
  postgresql: {
    async connect(url) {
      const client = new (await postgresClient())({ connectionString: url });
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
    // A connection's startup options set its session: PgBouncer refuses them (`unsupported startup
    // parameter: options`), or, told to ignore them, drops them, so the setting is not there. Either
    // way sessions are the pooler's, and Prisma's migration lock (a session's advisory lock) would
    // wait forever there. A database that cannot be reached is no pooler: migrate says so itself.
    async pooled(url) {
      const client = new (await postgresClient())({ connectionString: url, options: "-c tablegen.session=kept" });
      client.on("error", () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ kept: string | null }>(
          "SELECT current_setting('tablegen.session', true) AS kept",
        );
        return rows[0]?.kept !== "kept";
      } catch (error) {
        return /unsupported startup parameter/.test((error as Error).message);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    afterMigrations() {},
    migrationAdapter: async (url) => (await import("../runtime/prisma-adapter.ts")).engineAdapter(url),
    // PGlite, PostgreSQL in WebAssembly; PostgreSQL gives each output column's type. One for the
    // process, made the first time (about a second), its public schema made anew for each check
    // (checks take turns), and closed once no check has come for SCRATCH_KEPT_MS. What it answers
    // is kept (src/cli/described-cache.ts): when every query was answered before over the same
    // tables, no PGlite is started.
    async scratch(schema, queries) {
      const cache = describedCache(pgliteVersion());
      const kept = new Map<string, Described>();
      for (const sql of queries) {
        const described = cache?.get(schema, sql);
        if (described) kept.set(sql, described);
      }
      const answer = (described: Described) => {
        if ("error" in described) throw new Error(described.error);
        return described.columns;
      };
      if (kept.size === new Set(queries).size) {
        return {
          describe: async (sql) => answer(kept.get(sql) ?? { error: `not a query of this check: ${sql}` }),
          close: async () => {},
        };
      }
      const done = await turn();
      try {
        const db = await (scratchPostgres ??= emptyPostgres().catch((error: unknown) => {
          scratchPostgres = undefined;
          throw error;
        }));
        await db.exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public; ${schema}`);
        const describe = async (sql: string) => {
          const known = kept.get(sql);
          if (known) return answer(known);
          try {
            const columns = await describePostgres(db, sql);
            cache?.set(schema, sql, { columns });
            return columns;
          } catch (error) {
            // The database's refusal is kept; a failure of PGlite itself is not.
            if (isDatabaseError(error)) cache?.set(schema, sql, { error: error.message });
            throw error;
          }
        };
        return { describe, close: async () => done() };
      } catch (error) {
        done();
        throw error;
      }
    },
  },
};

/** Whether a database URL leads through a connection pooler that shares sessions (PgBouncer in transaction mode). */
export function throughPooler(database: DatabaseKind, url: string): Promise<boolean> {
  return DRIVERS[database].pooled(url);
}

/** A scratch database of a kind, made of `schema` (the model's tables). */
export function scratchDatabase(database: DatabaseKind, schema: string, queries: string[]): Promise<ScratchDatabase> {
  return DRIVERS[database].scratch(schema, queries);
}

/** The process's PGlite for checks (scratch databases on PostgreSQL), once made. */
let scratchPostgres: Promise<PGlite> | undefined;
/** The end of the last check's turn. */
let lastTurn: Promise<void> = Promise.resolve();
/** How long the PGlite is kept after a check (it holds ≈ 400 MB): `tablegen studio` checks on every change. */
const SCRATCH_KEPT_MS = 60_000;
let idle: NodeJS.Timeout | undefined;

/** Waits for the checks before this one to close; resolves to what ends this one's turn. */
async function turn(): Promise<() => void> {
  let ended!: () => void;
  const previous = lastTurn;
  lastTurn = new Promise((resolve) => (ended = resolve));
  await previous;
  clearTimeout(idle);
  return () => {
    idle = setTimeout(releaseScratchPostgres, SCRATCH_KEPT_MS).unref();
    ended();
  };
}

/** Closes the checks' PGlite, if one is kept: the next check makes another. */
export function releaseScratchPostgres(): Promise<void> {
  const kept = scratchPostgres;
  scratchPostgres = undefined;
  return kept ? kept.then((db) => db.close()).catch(() => undefined) : Promise.resolve();
}

/** The version of the PGlite installed (its package.json, beside its dist/, is not exported). */
function pgliteVersion(): string {
  if (installedPglite === undefined) {
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
    const manifest = join(dirname(dirname(entry)), "package.json");
    installedPglite = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
  }
  return installedPglite;
}
let installedPglite: string | undefined;

/** A refusal of PostgreSQL's own, with its SQLSTATE code (a missing column, a syntax error). */
function isDatabaseError(error: unknown): error is Error {
  return error instanceof Error && /^[0-9A-Z]{5}$/.test(String((error as { code?: unknown }).code));
}

/**
 * A query's output columns as PostgreSQL describes them: each one's type, and, for an int8 taken
 * straight from a table's column, which column (a bigint id or reference is answered as a string,
 * a count as a number, though both are int8). PGlite's describeQuery gives names and types only:
 * the origins are read from the same Describe's RowDescription, asked of the protocol itself.
 */
async function describePostgres(db: PGlite, sql: string): Promise<DescribedColumn[]> {
  const fields = (await db.describeQuery(sql)).resultFields;
  const columns: DescribedColumn[] = fields.map(({ name, dataTypeID }) => ({ name, typeId: dataTypeID }));
  if (!fields.some((field) => field.dataTypeID === INT8)) return columns;
  const { serialize } = await import("pg-protocol");
  // Parse the unnamed statement, Describe it ('S': a statement, not a portal), Sync: pg's own serializer.
  const { messages } = await db.execProtocol(
    new Uint8Array(
      Buffer.concat([serialize.parse({ text: sql }), serialize.describe({ type: "S", name: "" }), serialize.sync()]),
    ),
  );
  const described = messages.find((entry) => entry.name === "rowDescription") as
    { fields: { tableID: number; columnID: number }[] } | undefined;
  if (described?.fields.length !== columns.length) return columns;
  const { rows } = await db.query<{ oid: number; attnum: number; relname: string; attname: string }>(
    `SELECT c.oid::int AS oid, a.attnum, c.relname, a.attname FROM pg_class c
     JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0`,
  );
  const names = new Map(rows.map((row) => [`${row.oid}.${row.attnum}`, row]));
  return columns.map((column, index) => {
    const { tableID, columnID } = described.fields[index]!;
    const origin = column.typeId === INT8 ? names.get(`${tableID}.${columnID}`) : undefined;
    return origin ? { ...column, table: origin.relname, column: origin.attname } : column;
  });
}

/** PostgreSQL's int8: a bigint id or reference, or a count. */
const INT8 = 20;

/**
 * An empty PGlite database. Making one runs initdb (about 2 s); loading the data directory of one
 * made before takes under half of that, so the first is kept in the OS's temporary directory.
 */
async function emptyPostgres(): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const kept = join(tmpdir(), `tablegen-pglite-${pgliteVersion()}.tar`);
  if (existsSync(kept)) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([readFileSync(kept)]) });
    } catch {
      // Unreadable: made again below, and kept anew.
    }
  }
  const db = await PGlite.create();
  try {
    // Not compressed: loading 28 MB of tar takes a third less CPU than ungzipping 4 MB of it first.
    writeAtomically(kept, Buffer.from(await (await db.dumpDataDir("none")).arrayBuffer()));
  } catch {
    // Only time is lost: the next check makes its database again.
  }
  return db;
}

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

/** The adapter Prisma's migration engine applies migrations to a database through. */
export function migrationAdapter(
  database: DatabaseKind,
  url: string,
  outDir: string,
): Promise<SqlMigrationAwareDriverAdapterFactory> {
  return DRIVERS[database].migrationAdapter(url, outDir);
}

/** What the database needs once migrations are applied (SQLite: WAL mode). */
export function afterMigrations(database: DatabaseKind, url: string, outDir: string): void {
  DRIVERS[database].afterMigrations(url, outDir);
}
