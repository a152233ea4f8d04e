import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../src/cli/database.ts";
import { describedCache, QUERY_CACHE_VARIABLE } from "../../src/cli/described-cache.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";

// PostgreSQL's answers to the query check are kept between processes (src/cli/described-cache.ts):
// the same tables and query are not asked of a PGlite again.

const SCHEMA = 'CREATE TABLE "notes" ("id" SERIAL PRIMARY KEY, "title" TEXT NOT NULL);';
const PGLITE = (
  JSON.parse(readFileSync(join(REPO, "node_modules/@electric-sql/pglite/package.json"), "utf8")) as { version: string }
).version;

let dir: string;
const before = process.env[QUERY_CACHE_VARIABLE];

beforeEach(async () => {
  dir = join(await scratchDir("query-cache"), "cache");
  process.env[QUERY_CACHE_VARIABLE] = dir;
});

afterEach(() => {
  if (before === undefined) delete process.env[QUERY_CACHE_VARIABLE];
  else process.env[QUERY_CACHE_VARIABLE] = before;
});

/** What a PostgreSQL scratch database of SCHEMA says of one query: its columns, or its message. */
async function described(sql: string): Promise<unknown> {
  const db = await scratchDatabase("postgresql", SCHEMA, [sql]);
  try {
    return await db.describe(sql);
  } catch (error) {
    return (error as Error).message;
  } finally {
    await db.close();
  }
}

const entries = () => readdirSync(dir).filter((name) => name.endsWith(".json"));

describe("the kept answers of the query check", () => {
  it("keep a query's columns and a refusal's message, one file each, each given back as PostgreSQL gave it", async () => {
    const columns = [
      { name: "id", typeId: 23 },
      { name: "title", typeId: 25 },
    ];
    expect(await described("SELECT id, title FROM notes")).toEqual(columns);
    expect(await described("SELECT nmae FROM notes")).toBe('column "nmae" does not exist');
    expect(entries()).toHaveLength(2);
    const cache = describedCache(PGLITE)!;
    expect(cache.get(SCHEMA, "SELECT id, title FROM notes")).toEqual({ columns });
    expect(cache.get(SCHEMA, "SELECT nmae FROM notes")).toEqual({ error: 'column "nmae" does not exist' });
    // Over other tables, the same SQL is another question.
    expect(cache.get(`${SCHEMA} `, "SELECT id, title FROM notes")).toBeUndefined();
  });

  it("are what a later check answers, without asking PostgreSQL", async () => {
    // Answers PostgreSQL would never give: only the kept ones can be what comes back.
    describedCache(PGLITE)!.set(SCHEMA, "SELECT 1", { columns: [{ name: "kept", typeId: 16 }] });
    describedCache(PGLITE)!.set(SCHEMA, "SELECT id FROM notes", { error: "kept refusal" });
    const db = await scratchDatabase("postgresql", SCHEMA, ["SELECT 1", "SELECT id FROM notes"]);
    expect(await db.describe("SELECT 1")).toEqual([{ name: "kept", typeId: 16 }]);
    await expect(db.describe("SELECT id FROM notes")).rejects.toThrow("kept refusal");
    await db.close();
    // A database made for no query describes none.
    const none = await scratchDatabase("postgresql", SCHEMA, []);
    await expect(none.describe("SELECT 1")).rejects.toThrow("not a query of this check: SELECT 1");
  });

  it("ask PostgreSQL for what is not kept or unreadable, and keep its answer", async () => {
    describedCache(PGLITE)!.set(SCHEMA, "SELECT 1", { columns: [{ name: "kept", typeId: 16 }] });
    const [kept] = entries();
    writeFileSync(join(dir, kept!), '{"columns": [{"name": 1}]}');
    expect(await described("SELECT 1")).toEqual([{ name: "?column?", typeId: 23 }]);
    expect(JSON.parse(readFileSync(join(dir, kept!), "utf8"))).toEqual({ columns: [{ name: "?column?", typeId: 23 }] });
  });

  it("leave nothing half-written when an answer cannot be kept, and give the answer all the same", async () => {
    describedCache(PGLITE)!.set(SCHEMA, "SELECT 3", { columns: [{ name: "kept", typeId: 16 }] });
    const [entry] = entries();
    // Where the answer would go, a folder that cannot be replaced: neither read nor written.
    rmSync(join(dir, entry!));
    mkdirSync(join(dir, entry!, "in-the-way"), { recursive: true });
    expect(await described("SELECT 3")).toEqual([{ name: "?column?", typeId: 23 }]);
    expect(readdirSync(dir)).toEqual([entry]);
  });

  it("are not kept when TABLEGEN_QUERY_CACHE is empty", async () => {
    process.env[QUERY_CACHE_VARIABLE] = "";
    expect(describedCache(PGLITE)).toBeUndefined();
    expect(await described("SELECT title FROM notes")).toEqual([{ name: "title", typeId: 25 }]);
  });

  it("are neither read nor written in a folder others can write to", async () => {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    expect(describedCache(PGLITE)).toBeUndefined();
    expect(await described("SELECT title FROM notes")).toEqual([{ name: "title", typeId: 25 }]);
    expect(entries()).toEqual([]);
  });

  it("keep the newer half once there are more than a thousand", () => {
    const cache = describedCache(PGLITE)!;
    const [old, recent] = [new Date("2024-01-01T00:00:00Z"), new Date(Date.now() - 3_600_000)];
    const name = (index: number) => `${String(index).padStart(64, "0")}.json`;
    for (let index = 0; index < 1000; index++) {
      writeFileSync(join(dir, name(index)), '{"error": "old"}');
      // The first 501 the oldest, the others an hour old.
      const time = index < 501 ? old : recent;
      utimesSync(join(dir, name(index)), time, time);
    }
    cache.set(SCHEMA, "SELECT 2", { columns: [{ name: "two", typeId: 23 }] });
    const kept = entries().sort();
    expect(kept).toHaveLength(500);
    expect(kept.slice(0, 499)).toEqual(Array.from({ length: 499 }, (_, index) => name(501 + index)));
    expect(cache.get(SCHEMA, "SELECT 2")).toEqual({ columns: [{ name: "two", typeId: 23 }] });
  });
});
