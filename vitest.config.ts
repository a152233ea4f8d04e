import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The run's scratch root under the OS temp dir, the compiled CLI if out of date, then PostgreSQL.
    globalSetup: ["test/setup/run-root.ts", "test/setup/cli.ts", "test/setup/postgres.ts"],
    // A worker ends with the run, however the run ends.
    setupFiles: ["test/setup/worker.ts"],
    // Test files run side by side, each in its own process: most of their time is spent waiting on
    // child processes (the CLI, Prisma, generated servers) and databases, not on the CPU. Each file
    // uses its own scratch directories, databases and ports, and shares only the prepared examples
    // (test/helpers/shared-examples.ts), which are never written to once ready.
    pool: "forks",
    maxWorkers: 4,
    // No test has a clock of its own: each waits on events (a server's "Listening on" line, a
    // process's exit, an answer, a file appearing), so a loaded machine makes it slower, not red.
    // This backstop only ends a test or hook that hangs.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
