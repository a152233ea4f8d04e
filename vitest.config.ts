import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/setup/sequencer.ts";

/**
 * The fast tier (`npm run test:unit`, for the edit loop): the pure layers and what runs in this
 * process alone (Prisma's schema engine included, for diffs), with no server, database server or
 * child process of tablegen's or Prisma's.
 * `npm test` runs it and the integration tier together.
 */
const UNIT = [
  "test/architecture.test.ts",
  "test/golden.test.ts",
  "test/golden-cases.test.ts",
  "test/manifest/*.test.ts",
  "test/model/*.test.ts",
  "test/migrate/plan.test.ts",
  "test/migrate/sql.test.ts",
  "test/emit/breaking.test.ts",
  "test/emit/first-migration.test.ts",
  "test/emit/format.test.ts",
  "test/emit/laid-out.test.ts",
  "test/emit/openapi.test.ts",
  "test/emit/precompiled.test.ts",
  "test/emit/typed-templates.test.ts",
  "test/ai/generate.test.ts",
  "test/ai/schema.test.ts",
  "test/ai/summary.test.ts",
  "test/cli/init.test.ts",
  "test/cli/prisma.test.ts",
  "test/cli/queries.test.ts",
  "test/cli/described-cache.test.ts",
  "test/runtime/api-keys.test.ts",
  "test/runtime/formats.test.ts",
  "test/studio/units.test.ts",
  "test/setup/sequencer.test.ts",
];

// The tests reach no TLS server but a generated one of their own, whose self-signed certificate no
// CA store vouches for (e2e-runtime's client does not verify it). A machine's extra CA store
// (NODE_EXTRA_CA_CERTS, set on some machines) is read and parsed at the start of every Node process,
// ≈ 50 ms of CPU each, and a run starts some 330 of them (the CLI, generated servers, Prisma, npm):
// the workers and what they start go without it.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    // A worker ends with the run, however the run ends.
    setupFiles: ["test/setup/worker.ts"],
    // Test files run side by side, in worker processes: most of their time is spent waiting on
    // child processes (the CLI, Prisma, generated servers) and databases, not on the CPU. Each file
    // uses its own scratch directories, databases and ports, and shares only the prepared examples
    // and projects (test/helpers/once.ts), which are never written to once ready. Three workers keep
    // two cores busy (bench/RESULTS.md, `npm test`): each more one loads and warms up the same modules
    // again (with three the run took 165–170 s and 280–290 s of CPU, with four 170–178 s and 295–306 s);
    // two leave a core waiting.
    pool: "forks",
    maxWorkers: 3,
    // A worker runs one test file after another without starting afresh: the modules every file
    // loads (TypeScript, prettier, Fastify, the generator) are loaded once per worker, not per file.
    // Each file still gets its own scratch directories, databases, ports and servers.
    isolate: false,
    // The longest files first, on a fresh clone too (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // No test has a clock of its own: each waits on events (a server's "Listening on" line, a
    // process's exit, an answer, a file appearing), so a loaded machine makes it slower, not red.
    // This backstop only ends a test or hook that hangs.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    projects: [
      // The run's scratch root (its cache of query checks among it).
      { extends: true, test: { name: "unit", include: UNIT, globalSetup: ["test/setup/run-root.ts"] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: UNIT,
          // The run's scratch root under the OS temp dir, the compiled CLI if out of date, then PostgreSQL.
          globalSetup: ["test/setup/run-root.ts", "test/setup/cli.ts", "test/setup/postgres.ts"],
        },
      },
    ],
  },
});
