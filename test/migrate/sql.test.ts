import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { loadSources } from "../../src/cli/host.ts";
import type { RawManifest, RawTable } from "../../src/manifest/schema.ts";
import { emitMigration, migrationFolderName } from "../../src/emit/migration.ts";
import { emitPrismaSchema } from "../../src/emit/prisma-schema.ts";
import { planMigration as plan, type MigrationPlan, type Risk } from "../../src/migrate/plan.ts";
import { riskCountSql } from "../../src/migrate/risks.ts";
import { buildModel } from "../../src/model/build.ts";
import { postgresql } from "../../src/targets/postgresql.ts";
import { sqlite } from "../../src/targets/sqlite.ts";

const planMigration = (previous: RawManifest | undefined, next: RawManifest): MigrationPlan =>
  plan(previous, { manifest: next, model: buildModel(next) });
const sqliteRenames = sqlite.renameSql;
const wrapSqliteMigration = sqlite.migrationScript;

function shop(tables: Record<string, RawTable>): RawManifest {
  return { project: "shop", tables };
}

const scratch = mkdtempSync(join(tmpdir(), "tablegen-migrate-sql-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const dbFile = () => join(scratch, `db${++files}.sqlite`);

/** The number a counting query gives. */
function count(db: Database.Database, sql: string): number {
  return Number((db.prepare(sql).get() as { n: number | bigint }).n);
}

describe("riskCountSql", () => {
  const cases: [Risk, string][] = [
    [{ kind: "table-removed", table: "orders" }, `SELECT count(*) AS n FROM "orders"`],
    [
      { kind: "field-removed", table: "customers", field: "phone" },
      `SELECT count(*) AS n FROM "customers" WHERE "phone" IS NOT NULL`,
    ],
    [
      { kind: "type-changed", table: "customers", field: "score", from: "NUMBER", to: "TEXT" },
      `SELECT count(*) AS n FROM "customers" WHERE "score" IS NOT NULL`,
    ],
    [
      { kind: "type-changed", table: "customers", field: "id", from: "number", to: "uuid" },
      `SELECT count(*) AS n FROM "customers"`,
    ],
    [
      { kind: "narrowed", table: "customers", field: "name", from: 100, to: 3 },
      `SELECT count(*) AS n FROM "customers" WHERE length("name") > 3`,
    ],
    [
      { kind: "narrowed", table: "customers", field: "name", from: undefined, to: 3 },
      `SELECT count(*) AS n FROM "customers" WHERE length("name") > 3`,
    ],
    [
      { kind: "made-unique", table: "customers", field: "email" },
      `SELECT coalesce(sum(c), 0) AS n FROM (SELECT count(*) AS c FROM "customers" WHERE "email" IS NOT NULL GROUP BY "email" HAVING count(*) > 1) AS shared`,
    ],
    [
      { kind: "made-required", table: "customers", field: "phone" },
      `SELECT count(*) AS n FROM "customers" WHERE "phone" IS NULL`,
    ],
  ];

  it.each(cases)("%o", (risk, sql) => {
    expect(riskCountSql(risk, [])).toBe(sql);
  });

  // customers → clients in the same change as name → full_name, email → mail, phone → tel.
  const before = shop({
    customers: { fields: { name: { type: "TEXT", maxLength: 100 }, email: "EMAIL", phone: "PHONE", code: "TEXT" } },
    orders: { fields: { customer_id: { type: "NUMBER", references: "customers" }, total: "NUMBER" } },
  });
  const after = shop({
    clients: {
      renamedFrom: "customers",
      fields: {
        full_name: { type: "TEXT", maxLength: 3, renamedFrom: "name" },
        mail: { type: "EMAIL", unique: true, renamedFrom: "email" },
        tel: { type: "PHONE", required: true, renamedFrom: "phone" },
      },
    },
    orders: { fields: { customer_id: { type: "NUMBER", references: "clients" }, total: "TEXT" } },
  });
  const plan = planMigration(before, after);

  it("counts in the database as it is: with the names from before the renames", () => {
    expect(plan.risks).toEqual([
      { kind: "narrowed", table: "clients", field: "full_name", from: 100, to: 3 },
      { kind: "made-unique", table: "clients", field: "mail" },
      { kind: "made-required", table: "clients", field: "tel" },
      { kind: "field-removed", table: "clients", field: "code" },
      { kind: "type-changed", table: "orders", field: "total", from: "NUMBER", to: "TEXT" },
    ]);
    expect(plan.risks.map((risk) => riskCountSql(risk, plan.renames))).toEqual([
      `SELECT count(*) AS n FROM "customers" WHERE length("name") > 3`,
      `SELECT coalesce(sum(c), 0) AS n FROM (SELECT count(*) AS c FROM "customers" WHERE "email" IS NOT NULL GROUP BY "email" HAVING count(*) > 1) AS shared`,
      `SELECT count(*) AS n FROM "customers" WHERE "phone" IS NULL`,
      `SELECT count(*) AS n FROM "customers" WHERE "code" IS NOT NULL`,
      `SELECT count(*) AS n FROM "orders" WHERE "total" IS NOT NULL`,
    ]);
    expect(riskCountSql({ kind: "table-removed", table: "clients" }, plan.renames)).toBe(
      `SELECT count(*) AS n FROM "customers"`,
    );
  });

  describe("run on SQLite", () => {
    const db = new Database(":memory:");
    db.exec(`
      CREATE TABLE "customers" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT, "email" TEXT, "phone" TEXT, "score" REAL, "code" TEXT);
      CREATE TABLE "orders" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "customer_id" INTEGER, "total" REAL);
    `);
    const insert = db.prepare(
      `INSERT INTO "customers" ("name", "email", "phone", "score", "code") VALUES (?, ?, ?, ?, ?)`,
    );
    insert.run("Ann", "a@x", null, 1.5, "A");
    insert.run("Bob😀", "a@x", "555", null, null); // 4 characters, 5 UTF-16 units, 7 bytes
    insert.run("Cé😀", "b@x", null, 2, null); // 3 characters, 4 UTF-16 units, 7 bytes
    insert.run("Dora", null, "556", null, "D");
    insert.run("Eve", null, null, 3, null);
    db.exec(`INSERT INTO "orders" ("customer_id", "total") VALUES (1, 10), (2, NULL), (2, 7.5)`);
    afterAll(() => db.close());

    const counted = (risk: Risk) => count(db, riskCountSql(risk, []));

    it("table-removed counts every row", () => {
      expect(counted({ kind: "table-removed", table: "customers" })).toBe(5);
      expect(counted({ kind: "table-removed", table: "orders" })).toBe(3);
    });

    it("field-removed and type-changed count the rows holding a value", () => {
      expect(counted({ kind: "field-removed", table: "customers", field: "phone" })).toBe(2);
      expect(counted({ kind: "type-changed", table: "customers", field: "score", from: "NUMBER", to: "TEXT" })).toBe(3);
    });

    it("a changed id counts every row", () => {
      expect(counted({ kind: "type-changed", table: "customers", field: "id", from: "number", to: "uuid" })).toBe(5);
    });

    it("narrowed counts the values longer in characters (an emoji is one)", () => {
      expect(counted({ kind: "narrowed", table: "customers", field: "name", from: 100, to: 3 })).toBe(2);
      expect(counted({ kind: "narrowed", table: "customers", field: "name", from: 100, to: 2 })).toBe(5);
      expect(counted({ kind: "narrowed", table: "customers", field: "name", from: 100, to: 4 })).toBe(0);
    });

    it("made-unique counts every row sharing its value with another, not NULLs", () => {
      expect(counted({ kind: "made-unique", table: "customers", field: "email" })).toBe(2);
      expect(counted({ kind: "made-unique", table: "customers", field: "code" })).toBe(0);
      expect(counted({ kind: "made-unique", table: "orders", field: "customer_id" })).toBe(2);
    });

    it("made-required counts the NULLs", () => {
      expect(counted({ kind: "made-required", table: "customers", field: "phone" })).toBe(3);
      expect(counted({ kind: "made-required", table: "orders", field: "total" })).toBe(1);
    });

    it("the renamed change's queries run on the table before its renames", () => {
      expect(plan.risks.map((risk) => count(db, riskCountSql(risk, plan.renames)))).toEqual([2, 2, 3, 2, 2]);
    });
  });
});

describe("sqliteRenames", () => {
  const header = "-- Renames (tablegen: renamedFrom keeps the data)";

  it("writes nothing without renames", () => {
    const previous = shop({ customers: { fields: { email: { type: "EMAIL", unique: true } } } });
    const plan = planMigration(previous, previous);
    expect(sqliteRenames(plan.renames, plan.renamedPrevious)).toBe("");
  });

  it("renames a field's column", () => {
    const plan = planMigration(
      shop({ customers: { fields: { name: "TEXT", phone: "PHONE" } } }),
      shop({ customers: { fields: { name: "TEXT", mobile: { type: "PHONE", renamedFrom: "phone" } } } }),
    );
    expect(sqliteRenames(plan.renames, plan.renamedPrevious)).toBe(
      `${header}\nALTER TABLE "customers" RENAME COLUMN "phone" TO "mobile";\n`,
    );
  });

  it("renames a table", () => {
    const plan = planMigration(
      shop({
        customers: { fields: { name: "TEXT" } },
        orders: { fields: { customer_id: { type: "NUMBER", references: "customers" } } },
      }),
      shop({
        clients: { renamedFrom: "customers", fields: { name: "TEXT" } },
        orders: { fields: { customer_id: { type: "NUMBER", references: "clients" } } },
      }),
    );
    expect(sqliteRenames(plan.renames, plan.renamedPrevious)).toBe(
      `${header}\nALTER TABLE "customers" RENAME TO "clients";\n`,
    );
  });

  it("recreates a renamed unique field's index under its new name", () => {
    const plan = planMigration(
      shop({ customers: { fields: { email: { type: "EMAIL", unique: true } } } }),
      shop({ customers: { fields: { mail: { type: "EMAIL", unique: true, renamedFrom: "email" } } } }),
    );
    expect(sqliteRenames(plan.renames, plan.renamedPrevious)).toBe(
      [
        header,
        `ALTER TABLE "customers" RENAME COLUMN "email" TO "mail";`,
        `DROP INDEX "customers_email_key";`,
        `CREATE UNIQUE INDEX "customers_mail_key" ON "customers"("mail");`,
        "",
      ].join("\n"),
    );
  });

  it("recreates the indexes of a renamed table and of renamed fields under their new names", () => {
    const plan = planMigration(
      shop({
        people: { fields: { city: { type: "TEXT", index: true }, born: "DATETIME" }, indexes: [["city", "born"]] },
        pets: { fields: { owner_id: { type: "NUMBER", references: "people" } } },
      }),
      shop({
        persons: {
          renamedFrom: "people",
          fields: { town: { type: "TEXT", index: true, renamedFrom: "city" }, born: "DATETIME" },
          indexes: [["town", "born"]],
        },
        pets: { fields: { keeper_id: { type: "NUMBER", references: "persons", renamedFrom: "owner_id" } } },
      }),
    );
    expect(sqliteRenames(plan.renames, plan.renamedPrevious)).toBe(
      [
        header,
        `ALTER TABLE "people" RENAME TO "persons";`,
        `ALTER TABLE "persons" RENAME COLUMN "city" TO "town";`,
        `ALTER TABLE "pets" RENAME COLUMN "owner_id" TO "keeper_id";`,
        `DROP INDEX "people_city_idx";`,
        `CREATE INDEX "persons_town_idx" ON "persons"("town");`,
        `DROP INDEX "people_city_born_idx";`,
        `CREATE INDEX "persons_town_born_idx" ON "persons"("town", "born");`,
        `DROP INDEX "pets_owner_id_idx";`,
        `CREATE INDEX "pets_keeper_id_idx" ON "pets"("keeper_id");`,
        "",
      ].join("\n"),
    );
    expect(postgresql.renameSql(plan.renames, plan.renamedPrevious)).toContain(
      [
        `ALTER INDEX "people_city_idx" RENAME TO "persons_town_idx";`,
        `ALTER INDEX "people_city_born_idx" RENAME TO "persons_town_born_idx";`,
        `ALTER INDEX "pets_owner_id_idx" RENAME TO "pets_keeper_id_idx";`,
      ].join("\n"),
    );
  });

  it("recreates the unique indexes of a renamed table, and of its renamed fields", () => {
    const plan = planMigration(
      shop({
        customers: {
          fields: { email: { type: "EMAIL", unique: true }, code: { type: "TEXT", unique: true }, name: "TEXT" },
        },
      }),
      shop({
        clients: {
          renamedFrom: "customers",
          fields: {
            mail: { type: "EMAIL", unique: true, renamedFrom: "email" },
            code: { type: "TEXT", unique: true },
            name: "TEXT",
          },
        },
      }),
    );
    expect(sqliteRenames(plan.renames, plan.renamedPrevious)).toBe(
      [
        header,
        `ALTER TABLE "customers" RENAME TO "clients";`,
        `ALTER TABLE "clients" RENAME COLUMN "email" TO "mail";`,
        `DROP INDEX "customers_email_key";`,
        `CREATE UNIQUE INDEX "clients_mail_key" ON "clients"("mail");`,
        `DROP INDEX "customers_code_key";`,
        `CREATE UNIQUE INDEX "clients_code_key" ON "clients"("code");`,
        "",
      ].join("\n"),
    );
  });

  it("runs on a Prisma-made database, keeping rows, references and uniqueness", () => {
    const db = new Database(":memory:");
    db.exec(`
      CREATE TABLE "customers" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "email" TEXT);
      CREATE UNIQUE INDEX "customers_email_key" ON "customers"("email");
      CREATE TABLE "orders" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "customer_id" INTEGER,
        CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers" ("id") ON DELETE CASCADE ON UPDATE CASCADE);
      INSERT INTO "customers" ("email") VALUES ('a@x'), ('b@x');
      INSERT INTO "orders" ("customer_id") VALUES (1), (2), (2);
    `);
    const plan = planMigration(
      shop({
        customers: { fields: { email: { type: "EMAIL", unique: true } } },
        orders: { fields: { customer_id: { type: "NUMBER", references: "customers", onDelete: "cascade" } } },
      }),
      shop({
        clients: { renamedFrom: "customers", fields: { mail: { type: "EMAIL", unique: true, renamedFrom: "email" } } },
        orders: { fields: { customer_id: { type: "NUMBER", references: "clients", onDelete: "cascade" } } },
      }),
    );
    db.exec(wrapSqliteMigration(sqliteRenames(plan.renames, plan.renamedPrevious)));
    expect(db.prepare(`SELECT "id", "mail" FROM "clients" ORDER BY "id"`).all()).toEqual([
      { id: 1, mail: "a@x" },
      { id: 2, mail: "b@x" },
    ]);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`).pluck().all()).toEqual(
      ["clients_mail_key"],
    );
    expect(() => db.exec(`INSERT INTO "clients" ("mail") VALUES ('a@x')`)).toThrow(
      /UNIQUE constraint failed: clients\.mail/,
    );
    db.exec(`DELETE FROM "clients" WHERE "id" = 2`);
    expect(db.prepare(`SELECT "customer_id" FROM "orders"`).pluck().all()).toEqual([1]);
    expect(() => db.exec(`INSERT INTO "orders" ("customer_id") VALUES (9)`)).toThrow(/FOREIGN KEY constraint failed/);
    db.close();
  });
});

describe("wrapSqliteMigration", () => {
  const check = [
    "-- Every reference must still point at a row, or the CHECK fails and nothing above is kept.",
    "CREATE TEMP TABLE _tablegen_foreign_key_check (violations INTEGER CHECK (violations = 0));",
    "INSERT INTO _tablegen_foreign_key_check SELECT count(*) FROM pragma_foreign_key_check;",
    "DROP TABLE _tablegen_foreign_key_check;",
  ];

  it("turns foreign keys off, runs the statements in a transaction ended by the check, and turns them on", () => {
    expect(wrapSqliteMigration(`ALTER TABLE "users" ADD COLUMN "age" INTEGER;\n`)).toBe(
      [
        "PRAGMA foreign_keys=OFF;",
        "BEGIN IMMEDIATE;",
        "",
        `ALTER TABLE "users" ADD COLUMN "age" INTEGER;`,
        "",
        ...check,
        "COMMIT;",
        "PRAGMA foreign_keys=ON;",
        "",
      ].join("\n"),
    );
  });

  it("removes Prisma's foreign-key pragmas from the body, and keeps every other line", () => {
    const prisma = [
      "-- RedefineTables",
      "PRAGMA defer_foreign_keys=ON;",
      "PRAGMA foreign_keys=OFF;",
      `CREATE TABLE "new_users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL);`,
      "  PRAGMA foreign_keys=ON;  ",
      "PRAGMA defer_foreign_keys=OFF;",
      "PRAGMA user_version=2;",
      "",
    ].join("\n");
    expect(wrapSqliteMigration(prisma)).toBe(
      [
        "PRAGMA foreign_keys=OFF;",
        "BEGIN IMMEDIATE;",
        "",
        "-- RedefineTables",
        `CREATE TABLE "new_users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL);`,
        "PRAGMA user_version=2;",
        "",
        ...check,
        "COMMIT;",
        "PRAGMA foreign_keys=ON;",
        "",
      ].join("\n"),
    );
  });

  const schema = `
    CREATE TABLE "users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT);
    CREATE TABLE "posts" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "user_id" INTEGER NOT NULL, "title" TEXT NOT NULL,
      CONSTRAINT "posts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE);
    INSERT INTO "users" ("name") VALUES ('ann'), ('bob'), (NULL);
    INSERT INTO "posts" ("user_id", "title") VALUES (1, 'a1'), (1, 'a2'), (2, 'b1'), (3, 'c1');
  `;

  /** Prisma's rebuild of the parent table `users`, making `name` required. */
  const rebuild = [
    "-- RedefineTables",
    "PRAGMA defer_foreign_keys=ON;",
    "PRAGMA foreign_keys=OFF;",
    `CREATE TABLE "new_users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL DEFAULT '');`,
    `INSERT INTO "new_users" ("id", "name") SELECT "id", coalesce("name", '') AS "name" FROM "users";`,
    `DROP TABLE "users";`,
    `ALTER TABLE "new_users" RENAME TO "users";`,
    "PRAGMA foreign_keys=ON;",
    "PRAGMA defer_foreign_keys=OFF;",
    "",
  ].join("\n");

  const open = (file = ":memory:") => {
    const db = new Database(file);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    return db;
  };
  const posts = (db: Database.Database) =>
    db.prepare(`SELECT "id", "user_id", "title" FROM "posts" ORDER BY "id"`).all();
  const allPosts = [
    { id: 1, user_id: 1, title: "a1" },
    { id: 2, user_id: 1, title: "a2" },
    { id: 3, user_id: 2, title: "b1" },
    { id: 4, user_id: 3, title: "c1" },
  ];

  it("(control) the rebuild run in a plain transaction with foreign keys on loses the cascading child rows", () => {
    const db = open();
    db.exec(schema);
    db.exec(`BEGIN;\n${rebuild}\nCOMMIT;`);
    expect(posts(db)).toEqual([]);
    db.close();
  });

  it("keeps a cascading child table's rows through a rebuild of its parent, and its foreign key working after", () => {
    const db = open();
    db.exec(schema);
    db.exec(wrapSqliteMigration(rebuild));
    expect(db.inTransaction).toBe(false);
    expect(posts(db)).toEqual(allPosts);
    expect(db.prepare(`SELECT "id", "name" FROM "users" ORDER BY "id"`).all()).toEqual([
      { id: 1, name: "ann" },
      { id: 2, name: "bob" },
      { id: 3, name: "" },
    ]);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.prepare("SELECT count(*) FROM sqlite_temp_master").pluck().get()).toBe(0);
    expect(() => db.exec(`INSERT INTO "posts" ("user_id", "title") VALUES (99, 'orphan')`)).toThrow(
      /FOREIGN KEY constraint failed/,
    );
    db.exec(`DELETE FROM "users" WHERE "id" = 1`);
    expect(posts(db)).toEqual(allPosts.slice(2));
    db.close();
  });

  /** The schema and every row, to compare a database before and after. */
  const state = (db: Database.Database) => ({
    schema: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").all(),
    users: db.prepare(`SELECT * FROM "users" ORDER BY "id"`).all(),
    posts: posts(db),
  });

  it("undoes everything when a statement fails halfway", () => {
    const file = dbFile();
    let db = open(file);
    db.exec(schema);
    const before = state(db);
    const script = wrapSqliteMigration(
      [`DROP TABLE "posts";`, `ALTER TABLE "nowhere" ADD COLUMN "x" INTEGER;`, `DELETE FROM "users";`, ""].join("\n"),
    );
    expect(() => db.exec(script)).toThrow(/no such table: nowhere/);
    // exec stops at the failing statement: the first ran, the transaction is still open.
    expect(db.inTransaction).toBe(true);
    expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'posts'`).pluck().get()).toBe(0);
    db.close();
    db = open(file);
    expect(state(db)).toEqual(before);
    expect(posts(db)).toEqual(allPosts);
    db.close();
  });

  it("fails at the CHECK and undoes everything when a row is left referring to nothing", () => {
    const file = dbFile();
    let db = open(file);
    db.exec(schema);
    const before = state(db);
    const script = wrapSqliteMigration(
      `ALTER TABLE "users" ADD COLUMN "age" INTEGER;\nDELETE FROM "users" WHERE "id" = 1;\n`,
    );
    expect(() => db.exec(script)).toThrow(/CHECK constraint failed/);
    expect(db.inTransaction).toBe(true);
    db.close();
    db = open(file);
    expect(state(db)).toEqual(before);
    db.close();
  });
});

describe("a SQLite migration's script (emitMigration)", () => {
  const schema = `
    CREATE TABLE "_prisma_migrations" ("migration_name" TEXT NOT NULL, "finished_at" DATETIME, "rolled_back_at" DATETIME,
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0);
    INSERT INTO "_prisma_migrations" ("migration_name") VALUES ('20240101000000_next');
    CREATE TABLE "users" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT);
    CREATE TABLE "posts" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "user_id" INTEGER NOT NULL,
      CONSTRAINT "posts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE);
    INSERT INTO "users" ("name") VALUES ('ann'), ('bob');
    INSERT INTO "posts" ("user_id") VALUES (1), (2);
  `;
  const script = async (sql: string) =>
    (
      await emitMigration(
        { name: "20240101000000_next", sql, schema: "", manifest: shop({}) },
        sqlite,
        false,
        loadSources(),
      )
    ).get("prisma/migrations/20240101000000_next/migration.sql")!;
  const finished = (db: Database.Database) =>
    db.prepare(`SELECT "finished_at" FROM "_prisma_migrations"`).pluck().get();

  it("adds a column whose default is an expression to a table with rows: every row kept, and those referring to them", async () => {
    const db = new Database(":memory:");
    db.exec(schema);
    db.exec(
      await script(
        `ALTER TABLE "users" ADD COLUMN "seen" DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'));\n`,
      ),
    );
    const users = db.prepare(`SELECT "id", "name", "seen" FROM "users" ORDER BY "id"`).all() as { seen: string }[];
    expect(users).toMatchObject([
      { id: 1, name: "ann" },
      { id: 2, name: "bob" },
    ]);
    for (const user of users) expect(user.seen).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/);
    expect(count(db, `SELECT count(*) AS n FROM "posts"`)).toBe(2);
    // The column keeps its default for inserts that leave it out.
    db.exec(`INSERT INTO "users" ("name") VALUES ('cyd')`);
    expect(db.prepare(`SELECT "seen" FROM "users" WHERE "name" = 'cyd'`).pluck().get()).toMatch(/T.*\+00:00$/);
    db.close();
  });

  it("marks its row of Prisma's history finished in its own transaction; a failure leaves it unfinished", async () => {
    const db = new Database(":memory:");
    db.exec(schema);
    db.exec(await script(`ALTER TABLE "users" ADD COLUMN "age" INTEGER;\n`));
    expect(finished(db)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);

    const failing = new Database(":memory:");
    failing.exec(schema);
    const failingScript = await script(`ALTER TABLE "nowhere" ADD COLUMN "x" INTEGER;\n`);
    expect(() => failing.exec(failingScript)).toThrow(/no such table/);
    failing.exec("ROLLBACK");
    expect(finished(failing)).toBeNull();
    db.close();
    failing.close();
  });
});

describe("sqlite.diffSql: columns added in place rather than by a table rebuild", () => {
  const schemaOf = (manifest: RawManifest) => emitPrismaSchema(buildModel(manifest));
  const customerId = { type: "NUMBER", required: true, references: "customers", onDelete: "cascade" } as const;
  const before = shop({
    customers: { fields: { name: { type: "TEXT", required: true }, phone: "PHONE" } },
    orders: { fields: { customer_id: customerId, total: "NUMBER" } },
  });
  // customers gains two columns; orders gains one and has another made required.
  const after = shop({
    customers: {
      fields: {
        name: { type: "TEXT", required: true },
        phone: "PHONE",
        tier: { type: "TEXT", required: true, default: "basic" },
        score: { type: "NUMBER", default: 1.5 },
      },
    },
    orders: {
      fields: {
        customer_id: customerId,
        total: { type: "NUMBER", required: true, default: 0 },
        paid: { type: "BOOLEAN", required: true, default: false },
      },
    },
  });
  const pragmas = ["PRAGMA defer_foreign_keys=ON;", "PRAGMA foreign_keys=OFF;"];
  const pragmasAfter = ["PRAGMA foreign_keys=ON;", "PRAGMA defer_foreign_keys=OFF;", ""];
  const ordersRebuild = [
    `CREATE TABLE "new_orders" (`,
    `    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,`,
    `    "customer_id" INTEGER NOT NULL,`,
    `    "total" REAL NOT NULL DEFAULT 0,`,
    `    "paid" BOOLEAN NOT NULL DEFAULT false,`,
    `    CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers" ("id") ON DELETE CASCADE ON UPDATE CASCADE`,
    `);`,
    `INSERT INTO "new_orders" ("customer_id", "id", "total") SELECT "customer_id", "id", coalesce("total", 0) AS "total" FROM "orders";`,
    `DROP TABLE "orders";`,
    `ALTER TABLE "new_orders" RENAME TO "orders";`,
    `CREATE INDEX "orders_customer_id_idx" ON "orders"("customer_id");`,
  ];
  /** What `prisma migrate diff` (Prisma 6.19.3) writes from `before` to `after`. */
  const prisma = [
    "-- RedefineTables",
    ...pragmas,
    `CREATE TABLE "new_customers" (`,
    `    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,`,
    `    "name" TEXT NOT NULL,`,
    `    "phone" TEXT,`,
    `    "tier" TEXT NOT NULL DEFAULT 'basic',`,
    `    "score" REAL DEFAULT 1.5`,
    `);`,
    `INSERT INTO "new_customers" ("id", "name", "phone") SELECT "id", "name", "phone" FROM "customers";`,
    `DROP TABLE "customers";`,
    `ALTER TABLE "new_customers" RENAME TO "customers";`,
    ...ordersRebuild,
    ...pragmasAfter,
  ].join("\n");

  it("adds the columns of a table that only gains them in place, and keeps the rebuild of a table that changes", () => {
    expect(sqlite.diffSql(prisma, schemaOf(before), schemaOf(after))).toBe(
      [
        "-- RedefineTables",
        ...pragmas,
        `-- Columns added in place (tablegen): SQLite adds them to "customers" without copying a row.`,
        `ALTER TABLE "customers" ADD COLUMN "tier" TEXT NOT NULL DEFAULT 'basic';`,
        `ALTER TABLE "customers" ADD COLUMN "score" REAL DEFAULT 1.5;`,
        ...ordersRebuild,
        ...pragmasAfter,
      ].join("\n"),
    );
  });

  it("leaves no heading of a rebuild when no table is rebuilt", () => {
    const onlyCustomers = shop({ ...after.tables, orders: before.tables.orders! });
    const sql = prisma.replace(ordersRebuild.join("\n") + "\n", "");
    expect(sqlite.diffSql(sql, schemaOf(before), schemaOf(onlyCustomers))).toBe(
      [
        `-- Columns added in place (tablegen): SQLite adds them to "customers" without copying a row.`,
        `ALTER TABLE "customers" ADD COLUMN "tier" TEXT NOT NULL DEFAULT 'basic';`,
        `ALTER TABLE "customers" ADD COLUMN "score" REAL DEFAULT 1.5;`,
        "",
      ].join("\n"),
    );
  });

  it("leaves the database as the rebuild does: the same columns, defaults, indexes, references and rows", () => {
    // The tables of `before` as Prisma creates them, with rows.
    const start = `
      CREATE TABLE "customers" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "phone" TEXT);
      CREATE TABLE "orders" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "customer_id" INTEGER NOT NULL, "total" REAL,
        CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers" ("id") ON DELETE CASCADE ON UPDATE CASCADE);
      CREATE INDEX "orders_customer_id_idx" ON "orders"("customer_id");
      INSERT INTO "customers" ("name", "phone") VALUES ('Ada', '+44 20 7946 0958'), ('Grace', NULL);
      INSERT INTO "orders" ("customer_id", "total") VALUES (1, 10), (1, NULL), (2, 30);
    `;
    const migrated = (sql: string) => {
      const db = new Database(":memory:");
      db.exec(start);
      db.exec(sqlite.migrationScript(sql));
      const state = Object.fromEntries(
        ["customers", "orders"].map((table) => [
          table,
          {
            columns: db.pragma(`table_info("${table}")`),
            indexes: db.pragma(`index_list("${table}")`),
            references: db.pragma(`foreign_key_list("${table}")`),
            rows: db.prepare(`SELECT * FROM "${table}" ORDER BY "id"`).all(),
          },
        ]),
      );
      db.exec(`INSERT INTO "customers" ("name") VALUES ('Linus')`);
      const added = db.prepare(`SELECT * FROM "customers" WHERE "name" = 'Linus'`).get();
      db.close();
      return { state, added };
    };
    const rewritten = sqlite.diffSql(prisma, schemaOf(before), schemaOf(after));
    expect(rewritten).not.toContain(`"new_customers"`);
    const [rebuilt, inPlace] = [migrated(prisma), migrated(rewritten)];
    expect(inPlace).toEqual(rebuilt);
    expect(inPlace.state.customers!.rows).toEqual([
      { id: 1, name: "Ada", phone: "+44 20 7946 0958", tier: "basic", score: 1.5 },
      { id: 2, name: "Grace", phone: null, tier: "basic", score: 1.5 },
    ]);
    expect(inPlace.added).toEqual({ id: 3, name: "Linus", phone: null, tier: "basic", score: 1.5 });
  });

  /**
   * A rebuild of customers as Prisma writes it: the new table's columns, the columns copied (and
   * what is selected for them), the indexes made again.
   */
  const rebuild = (columns: string[], copied: string[], indexes: string[] = [], selected = copied) =>
    [
      "-- RedefineTables",
      ...pragmas,
      `CREATE TABLE "new_customers" (`,
      columns.map((column) => `    ${column}`).join(",\n"),
      `);`,
      `INSERT INTO "new_customers" (${copied.join(", ")}) SELECT ${selected.join(", ")} FROM "customers";`,
      `DROP TABLE "customers";`,
      `ALTER TABLE "new_customers" RENAME TO "customers";`,
      ...indexes,
      ...pragmasAfter,
    ].join("\n");
  const kept = [`"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`, `"name" TEXT NOT NULL`, `"phone" TEXT`];
  const copied = [`"id"`, `"name"`, `"phone"`];
  const customers = (fields: RawTable["fields"], rest: Partial<RawTable> = {}) =>
    schemaOf(shop({ customers: { fields, ...rest }, orders: before.tables.orders! }));
  const was = { name: { type: "TEXT", required: true }, phone: "PHONE" } as const;

  it("(control) rewrites such a rebuild when the column is appended", () => {
    const sql = rebuild([...kept, `"tier" TEXT NOT NULL DEFAULT 'basic'`], copied);
    expect(
      sqlite.diffSql(
        sql,
        customers(was),
        customers({ ...was, tier: { type: "TEXT", required: true, default: "basic" } }),
      ),
    ).toBe(
      `-- Columns added in place (tablegen): SQLite adds them to "customers" without copying a row.\nALTER TABLE "customers" ADD COLUMN "tier" TEXT NOT NULL DEFAULT 'basic';\n`,
    );
  });

  const tier = { type: "TEXT", required: true, default: "basic" } as const;
  const rebuilds: [string, string, string, string | undefined][] = [
    [
      "the first migration (nothing to diff from)",
      rebuild([...kept, `"tier" TEXT NOT NULL DEFAULT 'basic'`], copied),
      customers({ ...was, tier }),
      undefined,
    ],
    [
      "a column added before the table's others (SQLite adds a column last)",
      rebuild([kept[0]!, kept[1]!, `"tier" TEXT NOT NULL DEFAULT 'basic'`, kept[2]!], copied),
      customers({ name: was.name, tier, phone: was.phone }),
      customers(was),
    ],
    [
      "a unique column (its index is made with the rebuild's)",
      rebuild([...kept, `"tier" TEXT NOT NULL DEFAULT 'basic'`], copied, [
        `CREATE UNIQUE INDEX "customers_tier_key" ON "customers"("tier");`,
      ]),
      customers({ ...was, tier: { ...tier, unique: true } }),
      customers(was),
    ],
    [
      "a column with an index",
      rebuild([...kept, `"tier" TEXT NOT NULL DEFAULT 'basic'`], copied, [
        `CREATE INDEX "customers_tier_idx" ON "customers"("tier");`,
      ]),
      customers({ ...was, tier: { ...tier, index: true } }),
      customers(was),
    ],
    [
      "a column whose default is an expression (default: now)",
      rebuild([...kept, `"joined" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'))`], copied),
      customers({ ...was, joined: { type: "DATETIME", required: true, default: "now" } }),
      customers(was),
    ],
    [
      "a column changed beside the one added",
      rebuild(
        [kept[0]!, kept[1]!, `"phone" TEXT NOT NULL DEFAULT 'none'`, `"tier" TEXT NOT NULL DEFAULT 'basic'`],
        copied,
        [],
        [`"id"`, `"name"`, `coalesce("phone", 'none') AS "phone"`],
      ),
      customers({ ...was, phone: { type: "PHONE", required: true, default: "none" }, tier }),
      customers(was),
    ],
  ];

  it.each(rebuilds)("keeps the rebuild for %s", (_, sql, to, from) => {
    expect(sqlite.diffSql(sql, from, to)).toBe(sql);
  });

  it("is Prisma's diff as it is on PostgreSQL", () => {
    const sql = `ALTER TABLE "customers" ADD COLUMN "tier" TEXT NOT NULL DEFAULT 'basic';\n`;
    expect(postgresql.diffSql(sql, schemaOf(before), schemaOf(after))).toBe(sql);
  });
});

describe("migrationFolderName", () => {
  const at = new Date("2024-03-05T07:08:09.999Z");

  it("is the UTC time to the second, then the label", () => {
    expect(migrationFolderName("init", [], at)).toBe("20240305070809_init");
    expect(migrationFolderName("init", [], new Date("2024-12-31T23:30:00-05:00"))).toBe("20250101043000_init");
  });

  it("slugs the label: lower case, runs of other characters as one underscore, none at the ends, 60 at most", () => {
    expect(migrationFolderName("customers.phone: field removed", [], at)).toBe(
      "20240305070809_customers_phone_field_removed",
    );
    expect(migrationFolderName("  Add VIP--Customers!! ", [], at)).toBe("20240305070809_add_vip_customers");
    expect(migrationFolderName("Prénom ajouté", [], at)).toBe("20240305070809_pr_nom_ajout");
    expect(migrationFolderName("x".repeat(80), [], at)).toBe(`20240305070809_${"x".repeat(60)}`);
    expect(migrationFolderName("", [], at)).toBe("20240305070809_migration");
    expect(migrationFolderName("?!…", [], at)).toBe("20240305070809_migration");
  });

  it("is strictly later than the latest existing folder", () => {
    const existing = ["20240305070800_init", "20240305070809_add_tags"];
    expect(migrationFolderName("next", existing, at)).toBe("20240305070810_next");
    expect(migrationFolderName("next", existing, new Date("2020-01-01T00:00:00Z"))).toBe("20240305070810_next");
    expect(migrationFolderName("next", ["20241231235959_init"], new Date("2024-12-31T23:59:59.500Z"))).toBe(
      "20250101000000_next",
    );
    expect(migrationFolderName("next", existing, new Date("2024-03-05T07:08:11Z"))).toBe("20240305070811_next");
  });

  it("is not held back by a folder not named by a timestamp", () => {
    expect(migrationFolderName("next", ["manual_fix"], at)).toBe("20240305070809_next");
  });

  it("sorts after the folder it follows", () => {
    const existing = ["20240305070809_zzz"];
    const name = migrationFolderName("aaa", existing, at);
    expect([name, ...existing].sort()).toEqual([...existing, name]);
  });
});
