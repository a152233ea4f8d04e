import { setImmediate as turn } from "node:timers/promises";
import { afterAll, describe, expect, inject, it } from "vitest";
import { client } from "./helpers/http.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Servers that scale out: several processes on one database, each with nothing of its own to share.

const KEY = "scale-key";
const postgresUrl = inject("postgresUrl");
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

type Created = { data: { id: number; email: string } };

describe.skipIf(!postgresUrl)("two server processes on one PostgreSQL database", () => {
  it("store 400 concurrent creates split between them, each once, with distinct ids", async () => {
    const { url } = await exampleDatabase("blog", "postgresql");
    const env = { DATABASE_URL: url, API_SIGNATURE_KEY: KEY, DATABASE_POOL_SIZE: "5" };
    const { dir } = await sharedExample("blog", "postgresql");
    const pair = await Promise.all([startTranspiled(dir, env), startTranspiled(dir, env)]);
    servers.push(...pair);
    const apis = pair.map((server) => client(`${server.url}/blog`, KEY));

    const answers = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        apis[i % 2]!.post("/users/v1/create", { name: `u${i}`, email: `scale-${i}@example.com` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(400).fill(201));
    const ids = answers.map((answer) => (answer.body as Created).data.id);
    expect(new Set(ids).size).toBe(400);

    for (const api of apis) {
      const listed = ((await api.get("/users/v1/list")).body as { data: { id: number; email: string }[] }).data;
      expect(listed).toHaveLength(400);
      expect(new Set(listed.map((user) => user.email)).size).toBe(400);
      expect(listed.map((user) => user.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    }
  });
});

/** Seeds `rows` posts by one user, in one statement of the database's own SQL. */
const SEED = {
  sqlite: (rows: number) => `INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com');
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
    INSERT INTO posts (title, body, published, rating, user_id, published_at)
    SELECT 'Post ' || i, 'Body of post ' || i, i % 2, i % 100, 1, '2024-01-01T00:00:00.000+00:00' FROM n;`,
  postgresql: (rows: number) => `INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com');
    INSERT INTO posts (title, body, published, rating, user_id, published_at)
    SELECT 'Post ' || i, 'Body of post ' || i, i % 2 = 1, i % 100, 1, '2024-01-01T00:00:00Z'
    FROM generate_series(1, ${rows}) i;`,
};

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`whole tables streamed on ${database}`, () => {
    it("interleave four whole-table lists, and answer shows while they stream (issue 25)", async () => {
      const ROWS = 100_000;
      const STREAMS = 4;
      const db = await exampleDatabase("blog", database);
      await db.exec(SEED[database](ROWS));
      const { dir } = await sharedExample("blog", database);
      const server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
      servers.push(server);
      const headers = { "x-api-signature": KEY };

      // Events in the order they happen: each list's first and last bytes, each show's answer.
      const events: string[] = [];
      const lists = Array.from({ length: STREAMS }, async (_, index) => {
        const response = await fetch(`${server.url}/blog/posts/v1/list`, { headers });
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        let bytes = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (bytes === 0) events.push(`first ${index}`);
          bytes += value.length;
        }
        events.push(`last ${index}`);
        return bytes;
      });
      // Shows, one after another from the first byte of a list until every list has ended.
      let streaming = true;
      const shows: number[] = [];
      const showing = (async () => {
        while (!events.some((event) => event.startsWith("first"))) await turn();
        while (streaming) {
          const started = performance.now();
          const response = await fetch(`${server.url}/blog/posts/v1/show/7`, { headers });
          expect(response.status).toBe(200);
          expect(((await response.json()) as { data: { title: string } }).data.title).toBe("Post 7");
          shows.push(performance.now() - started);
          events.push("show");
        }
      })();
      const sizes = await Promise.all(lists);
      streaming = false;
      await showing;

      // Every list answers the whole table, byte for byte the same.
      expect(new Set(sizes).size).toBe(1);
      expect(sizes[0]).toBeGreaterThan(ROWS * 100);
      // The streams interleave: each has begun before any has ended.
      const firstEnd = events.findIndex((event) => event.startsWith("last"));
      expect(events.slice(0, firstEnd).filter((event) => event.startsWith("first"))).toHaveLength(STREAMS);
      // Shows are answered while the tables stream, not after them.
      expect(events.slice(0, firstEnd).filter((event) => event === "show").length).toBeGreaterThan(0);
      shows.sort((a, b) => a - b);
      console.log(
        `${database}: ${shows.length} shows during ${STREAMS} whole-table lists of ${ROWS} rows: ` +
          `p50 ${shows[Math.floor(shows.length / 2)]!.toFixed(1)} ms, max ${shows.at(-1)!.toFixed(1)} ms`,
      );
    });
  });
}

describe("npm run cluster", () => {
  it("serves from several worker processes on one port and stops on SIGTERM", async () => {
    const { url } = await exampleDatabase("tasks");
    // Request lines on (issue 32): each worker's lines go through a buffer of its own into the one pipe.
    const env = { DATABASE_URL: url, API_SIGNATURE_KEY: KEY, WORKERS: "2", LOG_LEVEL: "info" };
    const { dir } = await sharedExample("tasks");
    const cluster = await startTranspiled(dir, env, "cluster");
    const api = client(`${cluster.url}/tasks`, KEY);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => api.post("/tasks/v1/create", { title: `t${i}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(201));
    expect(((await api.get("/tasks/v1/list")).body as { data: unknown[] }).data).toHaveLength(50);
    // Each worker says so when it listens, on its own time: the primary's URL came from the first.
    await cluster.waitForOutput("Listening on", 2);
    expect(cluster.output().match(/Listening on/g)).toHaveLength(2);
    await cluster.stop();
    expect(cluster.process.exitCode).toBe(0);
    // Every request once, each line whole (two workers' writes never mix within a line), each
    // carrying its worker's pid; no hostname.
    const lines = cluster
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === "request" || line.msg === "write");
    expect(requests.filter((line) => line.msg === "write")).toHaveLength(50);
    expect(requests.filter((line) => line.path === "/tasks/tasks/v1/list")).toHaveLength(1);
    expect(requests).toHaveLength(51);
    expect(lines.every((line) => typeof line.pid === "number" && !("hostname" in line))).toBe(true);
    expect(new Set(lines.map((line) => line.pid)).size).toBe(2);
  });
});
