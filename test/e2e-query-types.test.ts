import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it, type TestContext } from "vitest";
import { postgresUrl, project, serve, tablegen } from "./migrate/scenario.ts";

// Issue 16, defect 4: a custom query's columns are answered by the records' rules on both
// databases, computed ones too. The query check learns each output column's type when the server
// is generated (SQLite names the field a column comes from; PostgreSQL, here PGlite, types every
// column, computed or not), so `max(due_at)` is `…Z` and `count(*) > 1` a boolean on SQLite as on
// PostgreSQL: the same requests answer the same bytes on both, over HTTP.

const MANIFEST = `project: shop
tables:
  tasks:
    fields:
      title: { type: TEXT, required: true }
      due_at: DATETIME
      done: { type: BOOLEAN, required: true, default: false }
      hours: NUMBER
      points: { type: NUMBER, integer: true }
queries:
  summary:
    sql: |
      SELECT title, upper(title) AS shout, count(*) AS tasks, sum(points) AS points, sum(hours) AS hours,
             avg(points) AS mean_points, max(due_at) AS last_due, count(*) > 1 AS several,
             max(due_at) IS NULL AS undated
      FROM tasks GROUP BY title ORDER BY title
  late:
    params: { since: DATETIME, done: BOOLEAN }
    sql: |
      SELECT id, title, done, due_at, due_at > :since AS late, coalesce(hours, 0) * 2 AS double_hours
      FROM tasks WHERE done = :done ORDER BY id
`;

const TASKS = [
  { title: "write", due_at: "2026-03-01T09:30:00Z", points: 2, hours: 1.5 },
  { title: "write", due_at: "2026-03-02T10:00:00+02:00", points: 3, hours: 2, done: true },
  { title: "read", points: 1 },
];

const SUMMARY = [
  {
    title: "read",
    shout: "READ",
    tasks: 1,
    points: 1,
    hours: null,
    mean_points: 1,
    last_due: null,
    several: false,
    undated: true,
  },
  {
    title: "write",
    shout: "WRITE",
    tasks: 2,
    points: 5,
    hours: 3.5,
    mean_points: 2.5,
    last_due: "2026-03-02T08:00:00Z",
    several: true,
    undated: false,
  },
];

const LATE = [{ id: 2, title: "write", done: true, due_at: "2026-03-02T08:00:00Z", late: true, double_hours: 4 }];

/** A project of the database, generated, migrated and served with the tasks above. */
async function served(database: "sqlite" | "postgresql", context: TestContext) {
  const { dir, db } = await project(database, MANIFEST);
  const generated = await tablegen(["generate"], dir);
  expect(generated.exitCode, generated.stderr).toBe(0);
  const migrated = await tablegen(["migrate"], dir);
  expect(migrated.exitCode, migrated.stderr).toBe(0);
  const { api } = await serve(dir, db, context);
  for (const task of TASKS) expect((await api.post("/tasks/v1/create", task)).status).toBe(201);
  return { dir, api };
}

it.skipIf(!postgresUrl)(
  "answers a query's computed date, boolean, integer, real and text columns with the same bytes on SQLite and PostgreSQL",
  async (context) => {
    const [sqlite, postgresql] = await Promise.all([served("sqlite", context), served("postgresql", context)]);
    for (const path of ["/v1/summary", `/v1/late?since=${encodeURIComponent("2026-03-01T12:00:00Z")}&done=true`]) {
      const [fromSqlite, fromPostgres] = await Promise.all([sqlite.api.get(path), postgresql.api.get(path)]);
      expect(fromSqlite.status, fromSqlite.text).toBe(200);
      expect(fromSqlite.text, path).toBe(fromPostgres.text);
    }
    const summary = await sqlite.api.get("/v1/summary");
    expect(summary.text).toBe(JSON.stringify({ success: true, message: "Data found.", data: SUMMARY }));
    const late = await sqlite.api.get(`/v1/late?since=${encodeURIComponent("2026-03-01T12:00:00Z")}&done=true`);
    expect(late.text).toBe(JSON.stringify({ success: true, message: "Data found.", data: LATE }));

    // The documents type the rows alike on both (and every answer above was checked against them).
    const rows = async (dir: string) => {
      const document = JSON.parse(await readFile(join(dir, "server/openapi/v1.json"), "utf8"));
      const answer = document.paths["/shop/v1/summary"].get.responses["200"].content["application/json"].schema;
      return answer.properties.data.items;
    };
    const sqliteRows = await rows(sqlite.dir);
    expect(sqliteRows).toEqual(await rows(postgresql.dir));
    expect(sqliteRows.properties).toEqual({
      title: { type: ["string", "null"] },
      shout: { type: ["string", "null"] },
      tasks: { type: ["integer", "null"] },
      points: { type: ["integer", "null"] },
      hours: { type: ["number", "null"] },
      mean_points: { type: ["number", "null"] },
      last_due: { type: ["string", "null"], format: "date-time" },
      several: { type: ["boolean", "null"] },
      undated: { type: ["boolean", "null"] },
    });
    expect(sqliteRows.additionalProperties).toBe(false);
  },
);
