import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { client } from "../helpers/http.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";

// A live database through a schema's life: data created over HTTP, the manifest edited, then
// `tablegen generate` and `tablegen migrate` as a user runs them, and every row checked over HTTP.

const KEY = "scenario-key";
const tablegen = (args: string[], cwd: string) =>
  execa(process.execPath, [join(REPO, "bin/tablegen.js"), ...args], { cwd, reject: false, env: { DATABASE_URL: "" } });

const FIRST = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
      phone: PHONE
      notes: { type: TEXT, maxLength: 20 }
  orders:
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, onDelete: cascade }
      total: NUMBER
`;

const SECOND = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
      mobile: { type: PHONE, renamedFrom: phone }
      notes: { type: TEXT, maxLength: 200 }
      email: EMAIL
      tier: { type: TEXT, required: true, default: basic }
  purchases:
    renamedFrom: orders
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, onDelete: cascade }
      total: NUMBER
  invoices:
    fields:
      purchase_id: { type: NUMBER, required: true, references: purchases }
      paid: { type: BOOLEAN, default: false }
`;

type Envelope<T = Record<string, unknown>> = { success: boolean; message: string; data: T };

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function serve(dir: string) {
  server = await startServer(join(dir, "server"), { DATABASE_URL: "file:./shop.db", API_SIGNATURE_KEY: KEY });
  return client(`${server.url}/shop`, KEY);
}

const columns = (dir: string, table: string) => {
  const db = new Database(join(dir, "server", "shop.db"), { readonly: true });
  const names = (db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name);
  db.close();
  return names;
};

describe("tablegen migrate on a live SQLite database", () => {
  it(
    "evolves the schema without losing a row, and refuses a removal until accepted",
    { timeout: 120_000 },
    async () => {
      const dir = await scratchDir("migrate-scenario");
      await writeFile(join(dir, "tablegen.yaml"), FIRST);
      await writeFile(join(dir, ".env"), 'DATABASE_URL="file:./shop.db"\n');
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      const first = await tablegen(["migrate"], dir);
      expect(first.stderr).toBe("");
      expect(first.stdout).toContain("No changes to the database schema: no migration written.");
      expect(first.stdout).toContain("Applied pending migrations to file:./shop.db.");

      let api = await serve(dir);
      const ada = (
        (await api.post("/customers/v1/create", { name: "Ada", phone: "+44 20 7946 0958", notes: "first" }))
          .body as Envelope
      ).data;
      const bob = ((await api.post("/customers/v1/create", { name: "Bob" })).body as Envelope).data;
      const order = ((await api.post("/orders/v1/create", { customer_id: ada.id, total: 12.5 })).body as Envelope).data;
      await server!.stop();

      await writeFile(join(dir, "tablegen.yaml"), SECOND);
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      const second = await tablegen(["migrate", "--name", "grow"], dir);
      expect(second.stderr).toBe("");
      expect(second.exitCode).toBe(0);
      expect(second.stdout).toMatch(/Wrote server\/prisma\/migrations\/\d{14}_grow:/);
      for (const change of [
        "orders: table renamed to purchases",
        "customers.phone: field renamed to mobile",
        "customers.notes: maxLength widened",
        "customers.email: field added",
        "customers.tier: field added",
        "invoices: table added",
      ]) {
        expect(second.stdout).toContain(`  ${change}`);
      }
      expect((await tablegen(["generate", "--check"], dir)).exitCode).toBe(0);

      api = await serve(dir);
      expect(((await api.get("/customers/v1/list")).body as Envelope).data).toEqual([
        { id: ada.id, name: "Ada", mobile: "+44 20 7946 0958", notes: "first", email: null, tier: "basic" },
        { id: bob.id, name: "Bob", mobile: null, notes: null, email: null, tier: "basic" },
      ]);
      expect(((await api.get("/purchases/v1/list")).body as Envelope).data).toEqual([
        { id: order.id, customer_id: ada.id, total: 12.5 },
      ]);
      expect((await api.get("/orders/v1/list")).status).toBe(404);
      const invoice = await api.post("/invoices/v1/create", { purchase_id: order.id });
      expect(invoice.status).toBe(201);
      expect((await api.post("/customers/v1/update/" + bob.id, { notes: "x".repeat(150) })).status).toBe(200);
      expect((await api.post("/purchases/v1/create", { customer_id: 999 })).body).toMatchObject({
        message: "Invalid request: customer_id refers to no customers record",
      });
      expect((await api.del(`/purchases/v1/delete/${order.id}`)).body).toMatchObject({
        message: "Record is referenced by invoices",
      });
      await server!.stop();

      // A removal that would lose data: refused, with nothing written and nothing changed.
      const migrations = await readdir(join(dir, "server/prisma/migrations"));
      await writeFile(join(dir, "tablegen.yaml"), SECOND.replace("      notes: { type: TEXT, maxLength: 200 }\n", ""));
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      const refused = await tablegen(["migrate"], dir);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toBe(
        "tablegen: migrate refused: the change would lose data:\n" +
          "  customers.notes: field removed, 2 rows hold a value\n" +
          "Nothing was written or changed. Run again with --accept-data-loss to apply it.",
      );
      expect(await readdir(join(dir, "server/prisma/migrations"))).toEqual(migrations);
      expect(columns(dir, "customers")).toContain("notes");

      const accepted = await tablegen(["migrate", "--accept-data-loss"], dir);
      expect(accepted.exitCode, accepted.stderr).toBe(0);
      expect(accepted.stdout).toContain("  customers.notes: field removed");
      expect(columns(dir, "customers")).not.toContain("notes");
      api = await serve(dir);
      expect(
        ((await api.get("/customers/v1/list")).body as Envelope<{ name: string }[]>).data.map((c) => c.name),
      ).toEqual(["Ada", "Bob"]);
      expect(((await api.get("/invoices/v1/list")).body as Envelope<unknown[]>).data).toHaveLength(1);

      const latest = (await readdir(join(dir, "server/prisma/migrations")))
        .filter((name) => /^\d{14}_/.test(name))
        .sort()
        .at(-1)!;
      const script = await readFile(join(dir, "server/prisma/migrations", latest, "migration.sql"), "utf8");
      expect(script.startsWith("PRAGMA foreign_keys=OFF;\nBEGIN;\n")).toBe(true);
    },
  );

  it("refuses a new required field without a default, naming it", { timeout: 60_000 }, async () => {
    const dir = await scratchDir("migrate-required");
    await writeFile(join(dir, "tablegen.yaml"), FIRST);
    expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
    await writeFile(
      join(dir, "tablegen.yaml"),
      FIRST.replace("      total: NUMBER\n", "      total: NUMBER\n      code: { type: TEXT, required: true }\n"),
    );
    const result = await tablegen(["migrate", "--create-only"], dir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      "tablegen: tablegen.yaml: cannot migrate:\n" +
        "  tables.orders.fields.code: a new required field needs a default, so that the table's existing rows get a value",
    );
  });

  it(
    "--create-only writes the migration without touching the database; a failed migration changes nothing",
    { timeout: 90_000 },
    async () => {
      const dir = await scratchDir("migrate-create-only");
      await writeFile(join(dir, "tablegen.yaml"), FIRST);
      await writeFile(join(dir, ".env"), 'DATABASE_URL="file:./shop.db"\n');
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
      const db = new Database(join(dir, "server/shop.db"));
      db.exec("INSERT INTO customers (name) VALUES ('Same'), ('Same')");
      db.close();

      const unique = FIRST.replace(
        "name: { type: TEXT, required: true }",
        "name: { type: TEXT, required: true, unique: true }",
      );
      await writeFile(join(dir, "tablegen.yaml"), unique);
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      const created = await tablegen(["migrate", "--create-only", "--accept-data-loss", "--name", "unique names"], dir);
      expect(created.exitCode, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/_unique_names:\n {2}customers\.name: made unique$/);
      expect(columns(dir, "customers")).toEqual(["id", "name", "phone", "notes"]);

      // Applying it fails on the duplicates: the transaction is rolled back and the attempt forgotten.
      const applied = await tablegen(["migrate", "--accept-data-loss"], dir);
      expect(applied.exitCode).toBe(1);
      expect(applied.stderr).toMatch(
        /^tablegen: the migration \d{14}_unique_names failed and was rolled back, the database is unchanged: P2002: Unique constraint failed on the fields: \(`name`\)$/,
      );
      const check = new Database(join(dir, "server/shop.db"), { readonly: true });
      expect(check.prepare("SELECT count(*) AS n FROM customers WHERE name = 'Same'").get()).toEqual({ n: 2 });
      expect(check.prepare("SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NULL").get()).toEqual({
        n: 0,
      });
      check.close();
    },
  );
});
