import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { FIRST, migratedProject, project, tablegen } from "./scenario.ts";

// A required field with a default reaches a live SQLite database in place (`ALTER TABLE ... ADD
// COLUMN`), where Prisma's own diff rebuilds the table and copies every row: the rows keep their
// values and read the default, and the table ends as a fresh database migrated to the same manifest
// has it.

const SECOND = FIRST.replace(
  "      notes: { type: TEXT, maxLength: 20 }\n",
  "      notes: { type: TEXT, maxLength: 20 }\n      tier: { type: TEXT, required: true, default: basic }\n      score: { type: NUMBER, default: 1.5 }\n",
);

const COLUMNS = `SELECT json_group_array(json_array(cid, name, type, "notnull", dflt_value, pk)) FROM pragma_table_info('customers')`;
const INDEXES = `SELECT group_concat(name || ':' || sql, ' | ') FROM (SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name)`;

describe("a required field with a default added to a live sqlite database", () => {
  it("is added in place: every row kept, with the default, and the table as a fresh migration makes it", async ({
    expect,
  }) => {
    const { dir, db, write } = await migratedProject("sqlite", FIRST);
    await db.exec(
      "INSERT INTO customers (name, phone, notes) VALUES ('Ada', '+44 20 7946 0958', 'first'), ('Grace', NULL, NULL)",
    );
    await db.exec("INSERT INTO orders (customer_id, total) VALUES (1, 10), (1, 20), (2, 30)");

    await write(SECOND);
    expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
    const migrated = await tablegen(["migrate", "--name", "tier"], dir);
    expect(migrated.stderr).toBe("");
    expect(migrated.exitCode).toBe(0);
    expect(migrated.stdout).toContain("  customers.tier: field added\n  customers.score: field added\n");
    const migrations = join(dir, "server", "prisma", "migrations");
    const folder = readdirSync(migrations).find((name) => name.endsWith("_tier"))!;
    const sql = readFileSync(join(migrations, folder, "migration.sql"), "utf8");
    expect(sql).toContain(
      `ALTER TABLE "customers" ADD COLUMN "tier" TEXT NOT NULL DEFAULT 'basic';\nALTER TABLE "customers" ADD COLUMN "score" REAL DEFAULT 1.5;\n`,
    );
    expect(sql).not.toContain("new_customers");

    expect(
      await db.value(`SELECT json_group_array(json_array(id, name, phone, notes, tier, score)) FROM customers`),
    ).toBe(
      JSON.stringify([
        [1, "Ada", "+44 20 7946 0958", "first", "basic", 1.5],
        [2, "Grace", null, null, "basic", 1.5],
      ]),
    );
    expect(Number(await db.value("SELECT sum(total) FROM orders"))).toBe(60);

    const fresh = await project("sqlite", SECOND);
    expect((await tablegen(["generate"], fresh.dir)).exitCode).toBe(0);
    expect((await tablegen(["migrate"], fresh.dir)).exitCode).toBe(0);
    expect(await db.value(COLUMNS)).toBe(await fresh.db.value(COLUMNS));
    expect(await db.value(INDEXES)).toBe(await fresh.db.value(INDEXES));
  });
});
