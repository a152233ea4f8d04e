import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { Database } from "../../src/manifest/schema.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { client } from "../helpers/http.ts";
import { liveDatabase, type LiveDatabase } from "../helpers/live-db.ts";
import { startServer, type RunningServer } from "../helpers/server.ts";

// A live database through a schema's life: data created over HTTP, the manifest edited, then
// `tablegen generate` and `tablegen migrate` as a user runs them, and every row checked over HTTP.
// The same scenario runs on SQLite and on PostgreSQL.

const KEY = "scenario-key";
const postgresUrl = inject("postgresUrl");
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
      email: { type: EMAIL, unique: true }
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

/** A project directory with a manifest for the database and a `.env` naming a fresh database. */
async function project(
  database: Database,
  manifest: string,
): Promise<{ dir: string; db: LiveDatabase; write: (text: string) => Promise<void> }> {
  const dir = await scratchDir(`migrate-${database}`);
  await mkdir(join(dir, "server"));
  const db = await liveDatabase(database, join(dir, "server"), postgresUrl);
  await writeFile(join(dir, ".env"), `DATABASE_URL="${db.url}"\n`);
  const write = (text: string) =>
    writeFile(join(dir, "tablegen.yaml"), text.replace("tables:\n", `database: ${database}\ntables:\n`));
  await write(manifest);
  return { dir, db, write };
}

async function serve(dir: string, db: LiveDatabase) {
  server = await startServer(join(dir, "server"), { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
  return client(`${server.url}/shop`, KEY);
}

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`tablegen migrate on a live ${database} database`, () => {
    it(
      "evolves the schema without losing a row, and refuses a removal until accepted",
      { timeout: 120_000 },
      async () => {
        const { dir, db, write } = await project(database, FIRST);
        expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
        const first = await tablegen(["migrate"], dir);
        expect(first.stderr).toBe("");
        expect(first.stdout).toContain("No changes to the database schema: no migration written.");
        expect(first.stdout).toContain("Applied pending migrations to");

        let api = await serve(dir, db);
        const ada = (
          (await api.post("/customers/v1/create", { name: "Ada", phone: "+44 20 7946 0958", notes: "first" }))
            .body as Envelope
        ).data;
        const bob = ((await api.post("/customers/v1/create", { name: "Bob" })).body as Envelope).data;
        const order = ((await api.post("/orders/v1/create", { customer_id: ada.id, total: 12.5 })).body as Envelope)
          .data;
        await server!.stop();

        await write(SECOND);
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

        api = await serve(dir, db);
        expect(((await api.get("/customers/v1/list")).body as Envelope).data).toEqual([
          { id: ada.id, name: "Ada", mobile: "+44 20 7946 0958", notes: "first", email: null, tier: "basic" },
          { id: bob.id, name: "Bob", mobile: null, notes: null, email: null, tier: "basic" },
        ]);
        expect(((await api.get("/purchases/v1/list")).body as Envelope).data).toEqual([
          { id: order.id, customer_id: ada.id, total: 12.5 },
        ]);
        expect((await api.get("/orders/v1/list")).status).toBe(404);
        // The renamed table's id sequence, keys and references all still work.
        const later = await api.post("/purchases/v1/create", { customer_id: bob.id, total: 3 });
        expect(later.status).toBe(201);
        expect((later.body as Envelope<{ id: number }>).data.id).toBe((order.id as number) + 1);
        const invoice = await api.post("/invoices/v1/create", { purchase_id: order.id });
        expect(invoice.status).toBe(201);
        expect(
          (await api.post(`/customers/v1/update/${bob.id}`, { notes: "x".repeat(150), email: "bob@example.com" }))
            .status,
        ).toBe(200);
        expect((await api.post(`/customers/v1/update/${ada.id}`, { email: "bob@example.com" })).body).toMatchObject({
          message: "Invalid request: email already exists",
        });
        expect((await api.post("/purchases/v1/create", { customer_id: 999 })).body).toMatchObject({
          message: "Invalid request: customer_id refers to no customers record",
        });
        expect((await api.del(`/purchases/v1/delete/${order.id}`)).body).toMatchObject({
          message: "Record is referenced by invoices",
        });
        await server!.stop();

        // A removal that would lose data: refused, with nothing written and nothing changed.
        const migrations = await readdir(join(dir, "server/prisma/migrations"));
        // (The same change turns a reference's cascade into restrict: Prisma then drops and re-adds
      // its foreign key by name, which only works if the table rename renamed it too.)
      await write(
        SECOND.replace("      notes: { type: TEXT, maxLength: 200 }\n", "").replace(
          "references: customers, onDelete: cascade",
          "references: customers, onDelete: restrict",
        ),
      );
        expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
        const refused = await tablegen(["migrate"], dir);
        expect(refused.exitCode).toBe(1);
        expect(refused.stderr).toBe(
          "tablegen: migrate refused: the change would lose data:\n" +
            "  customers.notes: field removed, 2 rows hold a value\n" +
            "Nothing was written or changed. Run again with --accept-data-loss to apply it.",
        );
        expect(await readdir(join(dir, "server/prisma/migrations"))).toEqual(migrations);
        expect(await db.columns("customers")).toContain("notes");

        const accepted = await tablegen(["migrate", "--accept-data-loss"], dir);
        expect(accepted.exitCode, accepted.stderr).toBe(0);
        expect(accepted.stdout).toContain("  customers.notes: field removed");
        expect(await db.columns("customers")).not.toContain("notes");
        api = await serve(dir, db);
        expect(
          ((await api.get("/customers/v1/list")).body as Envelope<{ name: string }[]>).data.map((c) => c.name),
        ).toEqual(["Ada", "Bob"]);
        expect(((await api.get("/invoices/v1/list")).body as Envelope<unknown[]>).data).toHaveLength(1);
      expect((await api.del(`/customers/v1/delete/${ada.id}`)).body).toMatchObject({ message: "Record is referenced by purchases" });

        const latest = (await readdir(join(dir, "server/prisma/migrations")))
          .filter((name) => /^\d{14}_/.test(name))
          .sort()
          .at(-1)!;
        const script = await readFile(join(dir, "server/prisma/migrations", latest, "migration.sql"), "utf8");
        expect(script).toMatch(/^-- Written by tablegen: a migration never changes once applied\.\n/);
        const body = script.slice(script.indexOf("\n") + 1);
        expect(body.startsWith(database === "sqlite" ? "PRAGMA foreign_keys=OFF;\nBEGIN;\n" : "BEGIN;\n")).toBe(true);
      },
    );

    it("refuses a new required field without a default, naming it", { timeout: 60_000 }, async () => {
      const { dir, write } = await project(database, FIRST);
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      await write(
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
        const { dir, db, write } = await project(database, FIRST);
        expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
        expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
        await db.exec("INSERT INTO customers (name) VALUES ('Same'), ('Same')");

        await write(
          FIRST.replace("name: { type: TEXT, required: true }", "name: { type: TEXT, required: true, unique: true }"),
        );
        expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
        const created = await tablegen(
          ["migrate", "--create-only", "--accept-data-loss", "--name", "unique names"],
          dir,
        );
        expect(created.exitCode, created.stderr).toBe(0);
        expect(created.stdout).toMatch(/_unique_names:\n {2}customers\.name: made unique$/);
        expect(await db.value("SELECT count(*) FROM _prisma_migrations")).toBe(database === "sqlite" ? 1 : "1");

        // Applying it fails on the duplicates: the transaction is rolled back and the attempt forgotten.
        const applied = await tablegen(["migrate", "--accept-data-loss"], dir);
        expect(applied.exitCode).toBe(1);
        expect(applied.stderr).toMatch(
          /^tablegen: the migration \d{14}_unique_names failed and was rolled back, the database is unchanged: /,
        );
        expect(Number(await db.value("SELECT count(*) FROM customers WHERE name = 'Same'"))).toBe(2);
        expect(Number(await db.value("SELECT count(*) FROM _prisma_migrations WHERE finished_at IS NULL"))).toBe(0);
        expect(await db.columns("customers")).toEqual(["id", "name", "phone", "notes"]);
      },
    );
  });
}
