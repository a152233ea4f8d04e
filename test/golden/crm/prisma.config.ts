import { defineConfig } from "prisma/config";
import { databaseUrl } from "./src/config.js";
import { loadEnvFile } from "./src/env.js";
import { migrationAdapter } from "./src/prisma-adapter.js";

loadEnvFile();
// The schema's env("DATABASE_URL") must resolve even when the default is used: without it Prisma
// leaves its offline JS engine and tries to download a native one.
process.env.DATABASE_URL = databaseUrl();

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  async adapter() {
    return migrationAdapter(databaseUrl());
  },
});
