import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The run's scratch root under the OS temp dir, then its PostgreSQL server.
    globalSetup: ["test/setup/run-root.ts", "test/setup/postgres.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
