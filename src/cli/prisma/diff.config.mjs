// @ts-check
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";

// The Prisma configuration tablegen runs `prisma migrate diff` with: schema-to-schema diffs need no
// database, but Prisma's offline (JS engine) mode needs an adapter, so an in-memory one is given.
// `schema` must name a schema whose generator has engineType "client" (the target of the diff), or
// Prisma falls back to native engines and tries to download them.
// Plain JavaScript: Prisma loads a TypeScript config through a transpiler, ~0.2 s per diff.
export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: process.env.TABLEGEN_SCHEMA,
  async adapter() {
    return new PrismaBetterSQLite3({ url: ":memory:" });
  },
});
