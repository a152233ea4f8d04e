import { readFileSync } from "node:fs";
import { afterAll, describe, expect, inject, it } from "vitest";
import { runFuzz, seedRecords } from "./fuzz/run.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// A short seeded run of `npm run fuzz` (scripts/fuzz.ts) on each database: hostile requests over
// raw sockets against the blog server under a 256 MB heap cap; every answer below 500, exactly the
// envelope, nothing leaked; the server alive after, and the records it acknowledged intact.

const KEY = "fuzz-test-key-3f9a1c7e";
const REQUESTS = 400;
const postgresUrl = inject("postgresUrl");
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`fuzzing the blog server on ${database}`, () => {
    it(`answers ${REQUESTS} hostile requests below 500, in the envelope, and keeps what it acknowledged`, async () => {
      const { dir } = await sharedExample("blog", database);
      const db = await exampleDatabase("blog", database);
      const server = await startTranspiled(dir, {
        DATABASE_URL: db.url,
        API_SIGNATURE_KEY: KEY,
        HEADERS_TIMEOUT_MS: "1000",
        REQUEST_TIMEOUT_MS: "1500",
        NODE_OPTIONS: "--max-old-space-size=256",
      });
      servers.push(server);
      await seedRecords(server.url, KEY);

      const report = await runFuzz({
        url: server.url,
        key: KEY,
        seed: 17,
        count: REQUESTS,
        concurrency: 16,
        deadlineMs: 6000,
      });

      expect(report.failures).toEqual([]);
      expect(report.requests).toBe(REQUESTS);
      expect(Object.keys(report.byStatus).filter((status) => !/^[1-4]\d\d$/.test(status))).toEqual([]);
      // The run reaches every layer: successes, refusals of the parser, of the router, of validation, timeouts.
      for (const status of ["200", "201", "400", "401", "404", "405", "408", "415"])
        expect(report.byStatus[status]).toBeGreaterThan(0);
      expect(report.checkedRecords).toBeGreaterThan(10);
      expect(server.process.exitCode).toBeNull();
      const list = await fetch(`${server.url}/blog/users/v1/list`, { headers: { "x-api-signature": KEY } });
      expect(list.status).toBe(200);
      const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.process.pid}/status`, "utf8"))?.[1]);
      expect(peakKb / 1024).toBeLessThan(384);
    });
  });
}
