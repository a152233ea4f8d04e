import type { Database } from "../manifest/schema.ts";
import type { Model, QueryColumn } from "../model/types.ts";
import { targetFor } from "../targets/index.ts";
import { scratchTables } from "../targets/sql.ts";
import { scratchDatabase } from "./database.ts";

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
 * model's kind (its driver's scratch database, src/cli/database.ts: SQLite in memory, PostgreSQL as
 * PGlite): a missing column, a misspelt table or a syntax error is found before anything is
 * written or migrated, in the database's own words. Each query that prepares is described: its
 * output columns and the kind each is answered as (`Target.columnKind`). A column the database
 * gives no type takes the one the target's `untypedColumnsFrom` database gives the same query over
 * the same tables, when that database understands it too: then both answer it alike. Otherwise
 * the column keeps the value its database gives it, and is untyped.
 */
export async function inspectQueries(model: Model): Promise<QueryCheck> {
  if (model.queries.length === 0) return { problems: [], columns: new Map() };
  // A process that checks the same tables and queries again (the studio: its live validation, the
  // plan, then generate and migrate) gets the answer it had; a PGlite start costs a second or more.
  const key = JSON.stringify([model.database, model.tables, model.queries]);
  const known = checked.get(key);
  if (known) return { problems: [...known.problems], columns: new Map(known.columns) };
  const check: QueryCheck = { problems: [], columns: new Map() };
  const described = await describeQueries(model, model.database);
  const elsewhere = targetFor(model.database).untypedColumnsFrom;
  const untyped = model.queries.filter((query) => {
    const columns = described.get(query.name);
    return typeof columns !== "string" && columns!.some((column) => column.kind === undefined);
  });
  if (elsewhere && untyped.length > 0) {
    const theirs = await describeQueries({ ...model, database: elsewhere, queries: untyped }, elsewhere);
    for (const query of untyped) {
      const own = described.get(query.name) as QueryColumn[];
      const other = theirs.get(query.name);
      if (typeof other === "string" || other?.length !== own.length) continue;
      described.set(
        query.name,
        own.map((column, index) => (column.kind === undefined ? { ...column, kind: other[index]!.kind } : column)),
      );
    }
  }
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

/** Each query's output columns, or the database's message refusing it. */
type Described = Map<string, QueryColumn[] | string>;

async function describeQueries(model: Model, database: Database): Promise<Described> {
  const target = targetFor(database);
  const described: Described = new Map();
  const sqls = model.queries.map((query) => target.querySql(query));
  const db = await scratchDatabase(database, scratchTables(model, target.tableSql), sqls);
  try {
    for (const [index, query] of model.queries.entries()) {
      try {
        const columns = await db.describe(sqls[index]!);
        described.set(
          query.name,
          columns.map((column) => ({ name: column.name, kind: target.columnKind(model, column) })),
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
