import { expect, it } from "vitest";
import { diffSchemas } from "../../src/cli/prisma/run.ts";
import { sqlite } from "../../src/targets/sqlite.ts";
import { userErrorMessage } from "../helpers/errors.ts";

// A failing Prisma process becomes one UserError in Prisma's own words, without its banners.

const HEADER = `generator client {
  provider   = "prisma-client"
  engineType = "client"
}

datasource db {
  provider = "sqlite"
  url      = env("DATABASE_URL")
}
`;

it(
  "reports a schema Prisma refuses as 'prisma migrate diff failed' with Prisma's error",
  { timeout: 30_000 },
  async () => {
    const schema = `${HEADER}\nmodel users {\n  id   Int @id\n  name Strin\n}\n`;
    expect(await userErrorMessage(diffSchemas(undefined, schema, sqlite))).toBe(
      [
        'prisma migrate diff failed: P1012: error: Type "Strin" is neither a built-in type, nor refers to another model, composite type, or enum.',
        "  -->  to.prisma:13",
        "   | ",
        "12 |   id   Int @id",
        "13 |   name Strin",
        "   |",
      ].join("\n"),
    );
  },
);

it("diffs two schemas given as text", { timeout: 30_000 }, async () => {
  const before = `${HEADER}\nmodel users {\n  id Int @id\n}\n`;
  const after = `${HEADER}\nmodel users {\n  id   Int    @id\n  name String?\n}\n`;
  expect(await diffSchemas(before, after, sqlite)).toContain('ALTER TABLE "users" ADD COLUMN "name" TEXT;');
});
