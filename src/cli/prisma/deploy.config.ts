import { pathToFileURL } from "node:url";
import { defineConfig } from "prisma/config";
import type { migrationAdapter } from "../../runtime/prisma-adapter.ts";

// The Prisma configuration `tablegen migrate` applies migrations with, so that a generated server
// needs no install of its own to be migrated: the schema, migrations and database come from the
// environment tablegen sets, and so does the adapter: the module of src/runtime/ that the target's
// servers migrate with (Target.runtimeFiles), which the generated servers' own configs use too.
const url = process.env.DATABASE_URL!;

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: process.env.TABLEGEN_SCHEMA,
  migrations: { path: process.env.TABLEGEN_MIGRATIONS },
  async adapter() {
    const adapter = (await import(pathToFileURL(process.env.TABLEGEN_ADAPTER!).href)) as {
      migrationAdapter: typeof migrationAdapter;
    };
    return adapter.migrationAdapter(url);
  },
});
