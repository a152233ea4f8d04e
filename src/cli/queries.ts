import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
  const db = await emptyPostgres();
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
