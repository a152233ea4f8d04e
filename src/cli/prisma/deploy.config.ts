import { defineConfig } from "prisma/config";
import { migrationAdapter } from "../../runtime/prisma-adapter.ts";
import { migrationAdapter as sqliteMigrationAdapter } from "../../runtime/sqlite-prisma-adapter.ts";

// The Prisma configuration `tablegen migrate` applies migrations with, so that a generated server
// needs no install of its own to be migrated: the schema, migrations and database come from the
// environment tablegen sets. Both go through the adapters the generated servers' own configs use.
const url = process.env.DATABASE_URL!;

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: process.env.TABLEGEN_SCHEMA,
  migrations: { path: process.env.TABLEGEN_MIGRATIONS },
  async adapter() {
    return url.startsWith("file:") ? sqliteMigrationAdapter(url) : migrationAdapter(url);
  },
});
