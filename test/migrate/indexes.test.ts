import { describe, it } from "vitest";
import { FIRST, postgresUrl, migratedProject, tablegen } from "./scenario.ts";

// Indexes reach a live database through `tablegen migrate`: added in place, every row kept, on both
// databases; the migration says what it does.

const INDEX_NAMES = {
  sqlite:
    "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_idx' ORDER BY name)",
  postgresql: "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE indexname LIKE '%_idx'",
} as const;

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`indexes on a live ${database} database`, () => {
    it("adds a field's index and a composite one in place, keeping every row", async ({ expect }) => {
      const { dir, db, write } = await migratedProject(database, FIRST);
      // The reference got its index with the first migration.
      expect(await db.value(INDEX_NAMES[database])).toBe("orders_customer_id_idx");
      await db.exec("INSERT INTO customers (name, phone) VALUES ('Ada', '+44 20 7946 0958'), ('Grace', NULL)");
      await db.exec("INSERT INTO orders (customer_id, total) VALUES (1, 10), (1, 20), (2, 30)");

      await write(
        FIRST.replace("      phone: PHONE\n", "      phone: { type: PHONE, index: true }\n").replace(
          "      total: NUMBER\n",
          "      total: NUMBER\n    indexes:\n      - [customer_id, total]\n",
        ),
      );
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      const migrated = await tablegen(["migrate", "--name", "indexes"], dir);
      expect(migrated.stderr).toBe("");
      expect(migrated.exitCode).toBe(0);
      expect(migrated.stdout).toContain(
        "  customers.phone: index added\n  orders: index on customer_id, total added\n",
      );
      expect(await db.value(INDEX_NAMES[database])).toBe(
        "customers_phone_idx,orders_customer_id_idx,orders_customer_id_total_idx",
      );
      expect(Number(await db.value("SELECT count(*) FROM customers"))).toBe(2);
      expect(Number(await db.value("SELECT sum(total) FROM orders"))).toBe(60);
    });
  });
}
