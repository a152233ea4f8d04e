import { once } from "node:events";
import { join } from "node:path";
import { describe, it } from "vitest";
import { REPO } from "./helpers/generate.ts";
import { client, failure } from "./helpers/http.ts";
import { startServer } from "./helpers/server.ts";
import { postgresUrl, project, tablegen } from "./migrate/scenario.ts";

// Issue 25, item 8: from its sunset date on, every route of a version answers 410 Gone in the
// envelope, naming the date; the server reads the clock at each request, so one left running past
// the date starts answering 410 then. v1's sunset has passed; v2's is tomorrow, and the server's
// clock is moved two days ahead while it runs (test/helpers/shifted-clock.mjs); v3 never ends.

const KEY = "sunset-key";
const DAY = 24 * 60 * 60 * 1000;
const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);

const MANIFEST = `project: shop
versions:
  v1: { deprecated: 2020-01-01, sunset: 2021-06-30 }
  v2: { deprecated: true, sunset: ${tomorrow} }
  v3: {}
tables:
  notes:
    fields:
      text: { type: TEXT, required: true }
queries:
  recent:
    sql: SELECT id, text FROM notes ORDER BY id DESC
`;

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`a version's sunset on ${database}`, () => {
    it("answers 410 Gone on every route of a version past its sunset, from the moment it passes", async ({
      expect,
      onTestFinished,
    }) => {
      const { dir, db } = await project(database, MANIFEST);
      const generated = await tablegen(["generate"], dir);
      expect(generated.exitCode, generated.stderr).toBe(0);
      expect(generated.stderr).toContain(
        "Warning: tablegen.yaml:3:41 versions.v1.sunset: 2021-06-30 has passed: every request to v1 is answered 410 Gone",
      );
      expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
      const server = await startServer(join(dir, "server"), {
        DATABASE_URL: db.url,
        API_SIGNATURE_KEY: KEY,
        NODE_OPTIONS: `--import ${join(REPO, "test/helpers/shifted-clock.mjs")}`,
        TEST_CLOCK_SHIFT_MS: String(2 * DAY),
      });
      onTestFinished(() => server.stop());
      const api = client(`${server.url}/shop`, KEY);
      const v1Gone = failure("Version v1 was sunset on 2021-06-30");

      // v1: every route, whatever the request holds, after the key and the path but before the rest.
      const v1Answers = await Promise.all([
        api.get("/notes/v1/list"),
        api.get("/notes/v1/list?bogus=1"),
        api.get("/notes/v1/show/1"),
        api.get("/notes/v1/show/999"),
        api.request("HEAD", "/notes/v1/show/1"),
        api.post("/notes/v1/create", { text: "hello" }),
        api.post("/notes/v1/create", {}),
        api.request("POST", "/notes/v1/create", {
          raw: "{not json",
          headers: { "content-type": "application/json" },
        }),
        api.request("POST", "/notes/v1/create", { raw: "text", headers: { "content-type": "text/plain" } }),
        api.post("/notes/v1/update/1", { text: "x" }),
        api.del("/notes/v1/delete/1"),
        api.get("/v1/recent"),
      ]);
      for (const answer of v1Answers) {
        expect(answer.status, answer.text).toBe(410);
        expect(answer.headers.get("deprecation")).toBe("@1577836800");
        expect(answer.headers.get("sunset")).toBe("Wed, 30 Jun 2021 00:00:00 GMT");
      }
      for (const answer of v1Answers.filter((_, index) => index !== 4)) expect(answer.body).toEqual(v1Gone);
      // The key first, then the path and the method; the version's document is still served.
      const noKey = await client(`${server.url}/shop`, undefined).get("/notes/v1/list");
      expect([noKey.status, noKey.body]).toEqual([401, failure("Invalid or missing API signature key")]);
      const unknown = await api.get("/notes/v1/nothing");
      expect([unknown.status, unknown.body]).toEqual([404, failure("Data not found")]);
      const method = await api.post("/notes/v1/list", {});
      expect([method.status, method.body, method.headers.get("allow")]).toEqual([
        405,
        failure("Method not allowed"),
        "GET, HEAD",
      ]);
      expect((await api.get("/v1/openapi.json")).status).toBe(200);

      // v2 serves until its sunset comes while the server runs; v3 serves on.
      const created = await api.post("/notes/v2/create", { text: "before" });
      expect(created.status, created.text).toBe(201);
      expect((await api.get("/notes/v2/show/1")).status).toBe(200);
      expect((await api.get("/v2/recent")).status).toBe(200);
      server.process.kill("SIGUSR2");
      while (!server.output().includes("clock shifted")) await once(server.process.stdout!, "data");
      const v2Gone = failure(`Version v2 was sunset on ${tomorrow}`);
      for (const answer of await Promise.all([
        api.get("/notes/v2/show/1"),
        api.post("/notes/v2/create", { text: "after" }),
        api.get("/v2/recent"),
      ])) {
        expect([answer.status, answer.body]).toEqual([410, v2Gone]);
      }
      const v3 = await api.get("/notes/v3/list");
      expect([v3.status, v3.headers.get("deprecation")]).toEqual([200, null]);
      expect((v3.body as { data: unknown[] }).data).toEqual([{ id: 1, text: "before" }]);
    });
  });
}
