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

describe("npm run cluster", () => {
  it("serves from several worker processes on one port and stops on SIGTERM", async () => {
    const { url } = await exampleDatabase("tasks");
    const env = { DATABASE_URL: url, API_SIGNATURE_KEY: KEY, WORKERS: "2" };
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
  });
});
