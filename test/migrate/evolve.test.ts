import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "vitest";
import { FIRST, SECOND, postgresUrl, project, serve, tablegen, type Envelope } from "./scenario.ts";

// A live database through a schema's life: data created over HTTP, the manifest edited, then
// `tablegen generate` and `tablegen migrate` as a user runs them, and every row checked over HTTP.
// The same tests run on SQLite and on PostgreSQL, side by side: each has its own project and database.

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(
    `tablegen migrate on a live ${database} database`,
    { concurrent: true },
    () => {
      it("evolves the schema without losing a row", async (context) => {
        const { expect } = context;
        const { dir, db, write } = await project(database, FIRST);
        expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
        const first = await tablegen(["migrate"], dir);
        expect(first.stderr).toBe("");
        expect(first.stdout).toContain("No changes to the database schema: no migration written.");
        expect(first.stdout).toContain("Applied pending migrations to");

        const before = await serve(dir, db, context);
        const ada = (
          (await before.api.post("/customers/v1/create", { name: "Ada", phone: "+44 20 7946 0958", notes: "first" }))
            .body as Envelope
        ).data;
        const bob = ((await before.api.post("/customers/v1/create", { name: "Bob" })).body as Envelope).data;
        const order = (
          (await before.api.post("/orders/v1/create", { customer_id: ada.id, total: 12.5 })).body as Envelope
        ).data;
        await before.stop();

        // SECOND renames a table and a field of v1 in place: a break of v1's contract, accepted on purpose.
        await write(SECOND);
        expect((await tablegen(["generate", "--allow-breaking", "v1"], dir)).exitCode).toBe(0);
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

        const { api } = await serve(dir, db, context);
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
      });

      it("refuses a removal that would lose data until accepted", async (context) => {
        const { expect } = context;
        // The schema's history up to SECOND, as "evolves the schema" makes it (orders renamed to
        // purchases), applied in one go; then rows in both customers, a purchase and its invoice.
        const { dir, db, write } = await project(database, FIRST);
        expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
        await write(SECOND);
        expect((await tablegen(["generate", "--allow-breaking", "v1"], dir)).exitCode).toBe(0);
        const grown = await tablegen(["migrate", "--name", "grow"], dir);
        expect(grown.exitCode, grown.stderr).toBe(0);

        const setup = await serve(dir, db, context);
        const created = async (path: string, body: Record<string, unknown>) => {
          const answer = await setup.api.post(path, body);
          expect(answer.status, answer.text).toBe(201);
          return (answer.body as Envelope).data;
        };
        const ada = await created("/customers/v1/create", { name: "Ada", mobile: "+44 20 7946 0958", notes: "first" });
        await created("/customers/v1/create", { name: "Bob", notes: "x".repeat(150), email: "bob@example.com" });
        const purchase = await created("/purchases/v1/create", { customer_id: ada.id, total: 12.5 });
        await created("/invoices/v1/create", { purchase_id: purchase.id });
        await setup.stop();

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
        expect((await tablegen(["generate", "--allow-breaking", "v1"], dir)).exitCode).toBe(0);
        const refused = await tablegen(["migrate"], dir);
        expect(refused.exitCode).toBe(1);
        expect(refused.stderr).toBe(
          "tablegen: migrate refused: the change would lose data:\n" +
            "  customers.notes: field removed, 2 rows hold a value\n" +
            "A server still running code that uses what this removes or changes answers 503 on that table until it is replaced: deploy the server generated from this manifest first, then apply this migration.\n" +
            "Nothing was written or changed. Run again with --accept-data-loss to apply it.",
        );
        expect(await readdir(join(dir, "server/prisma/migrations"))).toEqual(migrations);
        expect(await db.columns("customers")).toContain("notes");

        const accepted = await tablegen(["migrate", "--accept-data-loss"], dir);
        expect(accepted.exitCode, accepted.stderr).toBe(0);
        expect(accepted.stdout).toContain("  customers.notes: field removed");
        expect(await db.columns("customers")).not.toContain("notes");
        const { api } = await serve(dir, db, context);
        expect(
          ((await api.get("/customers/v1/list")).body as Envelope<{ name: string }[]>).data.map((c) => c.name),
        ).toEqual(["Ada", "Bob"]);
        expect(((await api.get("/invoices/v1/list")).body as Envelope<unknown[]>).data).toHaveLength(1);
        expect((await api.del(`/customers/v1/delete/${ada.id}`)).body).toMatchObject({
          message: "Record is referenced by purchases",
        });

        const latest = (await readdir(join(dir, "server/prisma/migrations")))
          .filter((name) => /^\d{14}_/.test(name))
          .sort()
          .at(-1)!;
        const script = await readFile(join(dir, "server/prisma/migrations", latest, "migration.sql"), "utf8");
        expect(script).toMatch(/^-- Written by tablegen: a migration never changes once applied\.\n/);
        const body = script.slice(script.indexOf("\n") + 1);
        expect(
          body.startsWith(database === "sqlite" ? "PRAGMA foreign_keys=OFF;\nBEGIN IMMEDIATE;\n" : "BEGIN;\n"),
        ).toBe(true);
      });
    },
  );
}
