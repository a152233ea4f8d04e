import { describe, it } from "vitest";
import { FIRST, postgresUrl, project, tablegen } from "./scenario.ts";

// What `tablegen migrate` refuses or fails on, with a live database: nothing written that should
// not be, and the database left as it was. The same tests run on SQLite and on PostgreSQL, side by
// side: each has its own project and database.

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(
    `tablegen migrate on a live ${database} database`,
    { concurrent: true },
    () => {
      it("refuses a new required field without a default, naming it", { timeout: 60_000 }, async ({ expect }) => {
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
        "judges a change by the manifest last applied, even after a change the database did not see",
        { timeout: 90_000 },
        async ({ expect }) => {
          const { dir, db, write } = await project(database, FIRST);
          expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
          expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
          // Widened: SQLite stores any length, so only the manifest changes; it is recorded all the same.
          await write(FIRST.replace("maxLength: 20", "maxLength: 40"));
          const widened = await tablegen(["migrate"], dir);
          expect(widened.exitCode, widened.stderr).toBe(0);
          expect(widened.stdout).toContain("customers.notes: maxLength widened");
          await db.exec(`INSERT INTO customers (name, notes) VALUES ('Long', '${"x".repeat(32)}')`);
          // Narrowed below what is stored: refused as data loss, against 40, not the 20 of before.
          await write(FIRST.replace("maxLength: 20", "maxLength: 30"));
          const narrowed = await tablegen(["migrate"], dir);
          expect(narrowed.exitCode).toBe(1);
          expect(narrowed.stderr).toContain("migrate refused: the change would lose data:");
          expect(narrowed.stderr).toContain("customers.notes");
        },
      );

      it(
        "--create-only writes the migration without touching the database; a failed migration changes nothing",
        { timeout: 90_000 },
        async ({ expect }) => {
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
    },
  );
}
