import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";

// The Prisma configuration `tablegen migrate` applies migrations with, so that a generated server
// needs no install of its own to be migrated: the schema, migrations and database come from the
// environment tablegen sets.
export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: process.env.TABLEGEN_SCHEMA,
  migrations: { path: process.env.TABLEGEN_MIGRATIONS },
  async adapter() {
    return new PrismaBetterSQLite3({ url: process.env.DATABASE_URL! });
  },
});
