import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import type { Model } from "../model/types.ts";
import { targetFor } from "../targets/index.ts";

/** What preparing a custom query in a scratch database of its kind said, if it refused it. */
export interface QueryProblem {
  query: string;
  message: string;
}

/**
 * Prepares every custom query of the model against its tables, in an empty database of the
 * model's kind (SQLite in memory; PostgreSQL as PGlite, in WebAssembly, no server needed): a
 * missing column, a misspelt table or a syntax error is found before anything is written or
 * migrated, in the database's own words.
 */
export async function checkQueries(model: Model): Promise<QueryProblem[]> {
  if (model.queries.length === 0) return [];
  const target = targetFor(model.database);
  const schema = target.scratchSchema(model);
  const problems: QueryProblem[] = [];
  if (model.database === "sqlite") {
    const db = new Database(":memory:");
    try {
      db.exec(schema);
      for (const query of model.queries) {
        try {
          db.prepare(target.querySql(query));
        } catch (error) {
          problems.push({ query: query.name, message: (error as Error).message });
        }
      }
    } finally {
      db.close();
    }
    return problems;
  }
  const db = await PGlite.create();
  try {
    await db.exec(schema);
    for (const query of model.queries) {
      try {
        await db.describeQuery(target.querySql(query));
      } catch (error) {
        problems.push({ query: query.name, message: (error as Error).message });
      }
    }
  } finally {
    await db.close();
  }
  return problems;
}
