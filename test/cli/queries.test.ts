import { describe, expect, it } from "vitest";
import { releaseScratchPostgres } from "../../src/cli/database.ts";
import { inspectQueries } from "../../src/cli/queries.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import { buildModel } from "../../src/model/build.ts";

// The query check describes each custom query's output columns (issue 16, defect 4): the kinds the
// server answers them as and the OpenAPI documents type them by.

const manifest = (database: "sqlite" | "postgresql"): RawManifest => ({
  project: "shop",
  database,
  tables: {
    teams: { id: "uuid", fields: { name: { type: "TEXT", required: true } } },
    tasks: {
      fields: {
        team_id: { type: "NUMBER", references: "teams" },
        title: { type: "EMAIL", required: true },
        due_at: "DATETIME",
        done: { type: "BOOLEAN", required: true, default: false },
      },
    },
  },
  queries: {
    direct: { sql: "SELECT t.id, x.team_id, x.title, x.due_at, x.done FROM tasks x JOIN teams t ON t.id = x.team_id" },
    computed: { sql: "SELECT max(due_at) AS last, count(*) > 0 AS any, count(*) AS n, avg(id) AS mean FROM tasks" },
    twice: { sql: "SELECT x.id, x.title AS id FROM tasks x" },
    sqlite_only: { sql: "SELECT title, strftime('%Y', due_at) AS year, done = 0 AS open FROM tasks" },
  },
});

describe("the query check's description of a query's columns", () => {
  it("on SQLite: a table's column has its field's kind; a computed one PostgreSQL's type, when PostgreSQL understands the SQL", async () => {
    const { problems, columns } = await inspectQueries(buildModel(manifest("sqlite")));
    expect(problems).toEqual([]);
    expect(Object.fromEntries(columns)).toEqual({
      direct: [
        { name: "id", kind: "uuid" },
        { name: "team_id", kind: "uuid" },
        { name: "title", kind: "text" },
        { name: "due_at", kind: "datetime" },
        { name: "done", kind: "boolean" },
      ],
      computed: [
        { name: "last", kind: "datetime" },
        { name: "any", kind: "boolean" },
        { name: "n", kind: "integer" },
        { name: "mean", kind: "float" },
      ],
      // One key per name, where the first stands, with the last one's value.
      twice: [{ name: "id", kind: "text" }],
      // strftime is SQLite's alone (and PostgreSQL compares no boolean with 0): untyped.
      sqlite_only: [{ name: "title", kind: "text" }, { name: "year" }, { name: "open" }],
    });
  });

  it("on PostgreSQL: every column has the kind of the type PostgreSQL gives it", async () => {
    const model = buildModel(manifest("postgresql"));
    const { problems, columns } = await inspectQueries({
      ...model,
      queries: model.queries.filter((query) => query.name !== "sqlite_only"),
    });
    expect(problems).toEqual([]);
    expect(columns.get("direct")).toEqual([
      { name: "id", kind: "uuid" },
      { name: "team_id", kind: "uuid" },
      { name: "title", kind: "text" },
      { name: "due_at", kind: "datetime" },
      { name: "done", kind: "boolean" },
    ]);
    expect(columns.get("computed")).toEqual([
      { name: "last", kind: "datetime" },
      { name: "any", kind: "boolean" },
      { name: "n", kind: "integer" },
      { name: "mean", kind: "float" },
    ]);
  });
});

describe("the query checks of one process", () => {
  // PostgreSQL's checks share one PGlite (booting one takes about a second): each starts from an
  // empty public schema, so a table of an earlier check, or of one running meanwhile, is not there.
  const alone = (name: string, sql: string): RawManifest => ({
    project: "shop",
    database: "postgresql",
    tables: { [name]: { fields: { title: { type: "TEXT", required: true } } } },
    queries: { titles: { sql } },
  });

  it("see only their own model's tables, one after another and side by side", async () => {
    const first = await inspectQueries(buildModel(alone("notes", "SELECT id, title FROM notes")));
    expect(first.problems).toEqual([]);
    const [later, meanwhile] = await Promise.all([
      inspectQueries(buildModel(alone("cards", "SELECT id, title FROM notes"))),
      inspectQueries(buildModel(alone("notes", "SELECT n.title FROM notes n JOIN cards c ON c.id = n.id"))),
    ]);
    expect(later.problems).toEqual([{ query: "titles", message: 'relation "notes" does not exist' }]);
    expect(meanwhile.problems).toEqual([{ query: "titles", message: 'relation "cards" does not exist' }]);
    const again = await inspectQueries(buildModel(alone("cards", "SELECT id, title FROM cards")));
    expect(again.problems).toEqual([]);
    expect(again.columns.get("titles")).toEqual([
      { name: "id", kind: "integer" },
      { name: "title", kind: "text" },
    ]);
  });

  it("make another PGlite once the kept one is closed (a minute after the last check)", async () => {
    await inspectQueries(buildModel(alone("notes", "SELECT id FROM notes")));
    await releaseScratchPostgres();
    const after = await inspectQueries(buildModel(alone("notes", "SELECT title FROM notes WHERE id > 1")));
    expect(after.problems).toEqual([]);
    expect(after.columns.get("titles")).toEqual([{ name: "title", kind: "text" }]);
    const refused = await inspectQueries(buildModel(alone("cards", "SELECT title FROM notes")));
    expect(refused.problems).toEqual([{ query: "titles", message: 'relation "notes" does not exist' }]);
  });
});
