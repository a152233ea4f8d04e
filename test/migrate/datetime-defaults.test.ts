import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "vitest";
import { postgresUrl, project, serve, tablegen, type Envelope } from "./scenario.ts";

// Issue 16, defect 3: a DATETIME that a migration's default fills is stored in the same form as one
// the API writes, so that a custom query comparing date-times sees both. On SQLite, Prisma's now()
// used to store CURRENT_TIMESTAMP text ('2026-11-22 13:04:50') beside the API's
// '2026-11-22T13:04:50.000+00:00', and a comparison with a parameter skipped the former. And an
// optional `default: now` field added to a table with rows: SQLite adds a column whose default is an
// expression to an empty table only, so the migration used to fail there.

const BEFORE = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
  orders:
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, onDelete: cascade }
`;

const AFTER = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
      joined: { type: DATETIME, required: true, default: now }
      since: { type: DATETIME, default: "2024-01-31T12:00:00Z" }
  orders:
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, onDelete: cascade }
      placed: { type: DATETIME, default: now }
queries:
  joined_since:
    params: { from: DATETIME }
    sql: SELECT id, joined FROM customers WHERE joined >= :from ORDER BY id
  member_since:
    params: { from: DATETIME }
    sql: SELECT id, since FROM customers WHERE since >= :from ORDER BY id
`;

/** Seconds, as the API answers a date-time. */
const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`DATETIME defaults on ${database}`, () => {
    it("a migration fills existing rows in the stored form of the API's writes, so custom queries compare them", async (context) => {
      const { expect } = context;
      const { dir, db, write } = await project(database, BEFORE);
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
      const before = await serve(dir, db, context);
      const ada = ((await before.api.post("/customers/v1/create", { name: "Ada" })).body as Envelope).data;
      const eve = ((await before.api.post("/customers/v1/create", { name: "Eve" })).body as Envelope).data;
      const order = await before.api.post("/orders/v1/create", { customer_id: ada.id });
      expect(order.status, order.text).toBe(201);
      await before.stop();

      const migrated = Date.now();
      await write(AFTER);
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      const migrate = await tablegen(["migrate", "--name", "dates"], dir);
      expect(migrate.exitCode, migrate.stderr).toBe(0);
      // Every row kept, and the rows referring to them (foreign keys are off while SQLite moves rows).
      expect(await db.value("SELECT count(*) FROM customers")).toBe(database === "sqlite" ? 2 : "2");
      expect(await db.value("SELECT count(*) FROM orders")).toBe(database === "sqlite" ? 1 : "1");

      const { api } = await serve(dir, db, context);
      const bob = ((await api.post("/customers/v1/create", { name: "Bob" })).body as Envelope).data;
      const cyd = (
        (await api.post("/customers/v1/create", { name: "Cyd", since: "2024-01-31T12:00:00Z" })).body as Envelope
      ).data;
      // Ada's values come from the migration, Bob's from the server's defaults, Cyd's from the body.
      const rows = await api.get("/customers/v1/list");
      expect(rows.status, rows.text).toBe(200);
      const [first, second] = (rows.body as Envelope<Record<string, unknown>[]>).data;
      expect(first).toMatchObject({ id: ada.id, name: "Ada", since: "2024-01-31T12:00:00Z" });
      expect(second).toMatchObject({ id: eve.id, name: "Eve" });
      expect(Date.parse(first!.joined as string)).toBeGreaterThanOrEqual(Date.parse(seconds(migrated)) - 1000);
      // An optional field's default fills the rows too (on SQLite, a column added to a table with rows).
      const orders = (await api.get("/orders/v1/list")).body as Envelope<Record<string, unknown>[]>;
      expect(orders.data).toHaveLength(1);
      expect(orders.data[0]).toMatchObject({ customer_id: ada.id });
      expect(Date.parse(orders.data[0]!.placed as string)).toBeGreaterThanOrEqual(Date.parse(seconds(migrated)) - 1000);

      // The stored text of a migration's default and of the API's write is the same form.
      if (database === "sqlite") {
        const stored = async (id: unknown, column: string) =>
          db.value(`SELECT ${column} FROM customers WHERE id = ${String(id)}`);
        expect(await stored(ada.id, "since")).toBe("2024-01-31T12:00:00.000+00:00");
        expect(await stored(cyd.id, "since")).toBe("2024-01-31T12:00:00.000+00:00");
        const form = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/;
        for (const id of [ada.id, eve.id, bob.id]) expect(await stored(id, "joined")).toMatch(form);
        expect(await db.value("SELECT placed FROM orders")).toMatch(form);
      }

      const from = seconds(migrated - 60_000);
      const joined = await api.get(`/v1/joined_since?from=${from}`);
      expect(joined.status).toBe(200);
      expect((joined.body as Envelope<{ id: number }[]>).data.map((row) => row.id)).toEqual([
        ada.id,
        eve.id,
        bob.id,
        cyd.id,
      ]);
      const member = await api.get("/v1/member_since?from=2024-01-31T12:00:00Z");
      expect(member.body).toEqual({
        success: true,
        message: "Data found.",
        data: [
          { id: ada.id, since: "2024-01-31T12:00:00Z" },
          { id: eve.id, since: "2024-01-31T12:00:00Z" },
          { id: bob.id, since: "2024-01-31T12:00:00Z" },
          { id: cyd.id, since: "2024-01-31T12:00:00Z" },
        ],
      });
    });
  });
}

it("says what a migration does when only tablegen changed: a project whose schema an earlier tablegen wrote", async ({
  expect,
}) => {
  const { dir } = await project("sqlite", AFTER);
  expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
  // The first migration as an earlier tablegen wrote it: Prisma's now(), stored as CURRENT_TIMESTAMP.
  const migrations = join(dir, "server/prisma/migrations");
  const [init] = await readdir(migrations);
  const schema = join(migrations, init!, "schema.prisma");
  const current = await readFile(schema, "utf8");
  const now = `@default(dbgenerated("(strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'))"))`;
  expect(current).toContain(now);
  await writeFile(schema, current.replaceAll(now, "@default(now())"));

  const result = await tablegen(["migrate", "--create-only"], dir);
  expect(result.stderr).toBe("");
  expect(result.stdout).toMatch(
    /^Wrote server\/prisma\/migrations\/\d{14}_tablegen_update:\n {2}customers\.joined: default rewritten as this tablegen writes it\n {2}orders\.placed: default rewritten as this tablegen writes it$/,
  );
  const [, update] = await readdir(migrations);
  expect(await readFile(join(migrations, update!, "migration.sql"), "utf8")).toContain('CREATE TABLE "new_customers"');
});
