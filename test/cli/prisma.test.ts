import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffSchemas } from "../../src/cli/prisma/engine.ts";
import { REPO } from "../helpers/generate.ts";
import { userErrorMessage } from "../helpers/errors.ts";

// Prisma's schema engine runs in tablegen's process for diffs (src/cli/prisma/engine.ts): the same
// engine Prisma's CLI runs, and a schema it refuses becomes one UserError in Prisma's own words.

const HEADER = `generator client {
  provider   = "prisma-client"
  engineType = "client"
}

datasource db {
  provider = "sqlite"
  url      = env("DATABASE_URL")
}
`;

it("diffs with the very engine of the Prisma CLI tablegen pins: the same WebAssembly file, at its engines' version", () => {
  const require = createRequire(import.meta.url);
  const wasmPackage = dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const cli = dirname(require.resolve("prisma/build/index.js"));
  const file = (dir: string) => readFileSync(join(dir, "schema_engine_bg.wasm"));
  expect(file(wasmPackage).equals(file(cli))).toBe(true);
  const version = (name: string) =>
    (JSON.parse(readFileSync(join(REPO, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const engines = JSON.parse(readFileSync(join(REPO, "node_modules/@prisma/engines-version/package.json"), "utf8")) as {
    prisma: { enginesVersion: string };
  };
  expect(version("@prisma/schema-engine-wasm")).toMatch(new RegExp(`\\.${engines.prisma.enginesVersion}$`));
});

it("reports a schema Prisma refuses as 'prisma migrate diff failed' with Prisma's error", async () => {
  const schema = `${HEADER}\nmodel users {\n  id   Int @id\n  name Strin\n}\n`;
  expect(await userErrorMessage(diffSchemas(undefined, schema))).toBe(
    [
      'prisma migrate diff failed: P1012: error: Type "Strin" is neither a built-in type, nor refers to another model, composite type, or enum.',
      "  -->  to.prisma:13",
      "   | ",
      "12 |   id   Int @id",
      "13 |   name Strin",
      "   |",
    ].join("\n"),
  );
});

it("diffs two schemas given as text", async () => {
  const before = `${HEADER}\nmodel users {\n  id Int @id\n}\n`;
  const after = `${HEADER}\nmodel users {\n  id   Int    @id\n  name String?\n}\n`;
  expect(await diffSchemas(before, after)).toContain('ALTER TABLE "users" ADD COLUMN "name" TEXT;');
});

describe("the schemas of the golden cases with indexes", () => {
  const schemaOf = (testCase: string, database: string) =>
    readFileSync(join(REPO, "test/golden/cases", testCase, database, "prisma/schema.prisma"), "utf8");

  it.each(["sqlite", "postgresql"] as const)(
    "long-names on %s: Prisma accepts an index whose default name would be too long, under its given name",
    async (database) => {
      const sql = await diffSchemas(undefined, schemaOf("long-names", database));
      expect(sql).toContain('CREATE INDEX "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb_01470c88_idx"');
    },
  );

  it.each(["sqlite", "postgresql"] as const)(
    "adding indexes to a table on %s creates them in place: no table is rebuilt or dropped",
    async (database) => {
      const withIndexes = schemaOf("indexes", database);
      const without = withIndexes.replace(/^ {2}@@index\(.*\)\n/gm, "");
      const sql = await diffSchemas(without, withIndexes);
      const statements = sql
        .split(";")
        .map((statement) => statement.replace(/--.*$/gm, "").trim())
        .filter(Boolean);
      expect(statements.map((statement) => statement.split(" ON ")[0])).toEqual([
        'CREATE INDEX "customers_city_idx"',
        'CREATE INDEX "customers_city_joined_at_idx"',
        'CREATE INDEX "orders_customer_id_idx"',
      ]);
    },
  );
});
