import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import { columnKind } from "../model/build.ts";
import type { Model, Query, QueryColumn } from "../model/types.ts";
import { targetFor } from "../targets/index.ts";
import { RESULT_KINDS } from "../targets/postgresql.ts";

/** What preparing a custom query in a scratch database of its kind said, if it refused it. */
export interface QueryProblem {
  query: string;
  message: string;
}

/** What the query check found: the queries' databases refused these, and described the others' output columns. */
export interface QueryCheck {
  problems: QueryProblem[];
  /** The output columns of every query that prepared, by query name. */
  columns: Map<string, QueryColumn[]>;
}

/** The problems of the model's custom queries (the AI repair loop's check). */
export async function checkQueries(model: Model): Promise<QueryProblem[]> {
  return (await inspectQueries(model)).problems;
}

/**
 * Prepares every custom query of the model against its tables, in an empty database of the
 * model's kind (SQLite in memory; PostgreSQL as PGlite, in WebAssembly, no server needed): a
 * missing column, a misspelt table or a syntax error is found before anything is written or
 * migrated, in the database's own words. Each query that prepares is described: its output
 * columns and the kind each is answered as (see `sqliteColumns` and `postgresColumns`).
 */
export async function inspectQueries(model: Model): Promise<QueryCheck> {
  if (model.queries.length === 0) return { problems: [], columns: new Map() };
  // A process that checks the same tables and queries again (the studio: its live validation, the
  // plan, then generate and migrate) gets the answer it had; a PGlite start costs a second or more.
  const key = JSON.stringify([model.database, model.tables, model.queries]);
  const known = checked.get(key);
  if (known) return { problems: [...known.problems], columns: new Map(known.columns) };
  const check: QueryCheck = { problems: [], columns: new Map() };
  const described = model.database === "sqlite" ? await sqliteColumns(model) : await postgresColumns(model);
  for (const [query, result] of described) {
    if (typeof result === "string") check.problems.push({ query, message: result });
    else check.columns.set(query, distinctNames(result));
  }
  checked.set(key, check);
  if (checked.size > CHECKS_KEPT) checked.delete(checked.keys().next().value!);
  return { problems: [...check.problems], columns: new Map(check.columns) };
}

/** The latest checks, by the tables and queries checked. */
const checked = new Map<string, QueryCheck>();
const CHECKS_KEPT = 32;

/** A query's output columns, or the database's message refusing it. */
type Described = Map<string, QueryColumn[] | string>;

/**
 * SQLite says where a column comes from when it is a table's column (`stmt.columns()`), and then it
 * has its field's kind; a computed one (`max(due_at)`, `count(*)`, `done = 1`) has no type in
 * SQLite, so it is given the type PostgreSQL gives the same query over the same tables, when the
 * query's SQL is one PostgreSQL understands too: then both databases answer it alike. Otherwise
 * the column keeps SQLite's value and is untyped.
 */
async function sqliteColumns(model: Model): Promise<Described> {
  const target = targetFor("sqlite");
  const described: Described = new Map();
  const computed: Query[] = [];
  const db = new Database(":memory:");
  try {
    db.exec(target.scratchSchema(model));
    for (const query of model.queries) {
      try {
        const columns = db.prepare(target.querySql(query)).columns();
        described.set(
          query.name,
          columns.map(({ name, table, column }) => ({
            name,
            ...(table !== null && column !== null && { kind: columnKind(model, table, column) }),
          })),
        );
        if (columns.some(({ column }) => column === null)) computed.push(query);
      } catch (error) {
        described.set(query.name, (error as Error).message);
      }
    }
  } finally {
    db.close();
  }
  if (computed.length === 0) return described;
  const elsewhere = await postgresColumns({ ...model, database: "postgresql", queries: computed });
  for (const query of computed) {
    const own = described.get(query.name) as QueryColumn[];
    const theirs = elsewhere.get(query.name);
    if (typeof theirs === "string" || theirs?.length !== own.length) continue;
    described.set(
      query.name,
      own.map((column, index) => (column.kind === undefined ? { ...column, kind: theirs[index]!.kind } : column)),
    );
  }
  return described;
}

/** PostgreSQL (PGlite) describes a prepared query's result: each column's type, whatever computes it. */
async function postgresColumns(model: Model): Promise<Described> {
  const target = targetFor("postgresql");
  const described: Described = new Map();
  const db = await emptyPostgres();
  try {
    await db.exec(target.scratchSchema(model));
    for (const query of model.queries) {
      try {
        const { resultFields } = await db.describeQuery(target.querySql(query));
        described.set(
          query.name,
          resultFields.map(({ name, dataTypeID }) => ({ name, kind: RESULT_KINDS[dataTypeID] })),
        );
      } catch (error) {
        described.set(query.name, (error as Error).message);
      }
    }
  } finally {
    await db.close();
  }
  return described;
}

/**
 * A row has one value per name: where two columns share a name (`SELECT a.id, b.id`), the row's
 * key stands where the first one does and holds the last one's value, as both drivers build rows.
 */
function distinctNames(columns: QueryColumn[]): QueryColumn[] {
  const byName = new Map<string, QueryColumn>();
  for (const column of columns) byName.set(column.name, column);
  return [...byName.values()].map(({ name, kind }) => (kind === undefined ? { name } : { name, kind }));
}

/** The version of the PGlite installed (its package.json, beside its dist/, is not exported). */
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const manifest = join(dirname(dirname(entry)), "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/**
 * An empty PGlite database. Making one runs initdb (about 2 s); loading the data directory of one
 * made before takes under half of that, so the first is kept in the OS's temporary directory.
 */
async function emptyPostgres(): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const kept = join(tmpdir(), `tablegen-pglite-${pgliteVersion()}.tar.gz`);
  if (existsSync(kept)) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([readFileSync(kept)]) });
    } catch {
      // Unreadable: made again below, and kept anew.
    }
  }
  const db = await PGlite.create();
  try {
    const dump = Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer());
    const partial = `${kept}.${process.pid}`;
    writeFileSync(partial, dump);
    renameSync(partial, kept);
  } catch {
    // Only time is lost: the next check makes its database again.
  }
  return db;
}
