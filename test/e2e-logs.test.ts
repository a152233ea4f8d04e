import { once } from "node:events";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { scratchDir } from "./helpers/generate.ts";
import { answersOutsideDocuments } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { START, startTranspiled, transpile, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Request logs that cost almost nothing (issue 32): the generated blog server's lines wait in a
// buffer (src/log.ts) written when it is full, when a line has waited LOG_FLUSH_MS, and before the
// process exits. Over real processes: after SIGTERM or SIGINT every request is in the log exactly
// once; a line logged before an uncaught error, or before a failed start, is written; a quiet
// server writes its lines within LOG_FLUSH_MS; no line holds a key or a header.

const KEY = "logs-key-0123456789abcdef";
const WRONG_KEY = "wrong-key-0123456789abcdef";
/** A header's value, which no line may hold. */
const HEADER_SECRET = "a-header-value-never-logged";
/** Long enough that no line is written by the timer during a test: only a full buffer or the stop writes. */
const HELD = { LOG_LEVEL: "info", LOG_FLUSH_MS: "60000" };
const postgresUrl = inject("postgresUrl");

type Line = Record<string, unknown>;

/** Every line the server printed, each parsed as JSON (but "Listening on"): a line cut or mixed fails here. */
const logLines = (output: string): Line[] =>
  output
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("Listening on "))
    .map((line) => JSON.parse(line) as Line);
const requestLines = (output: string) =>
  logLines(output).filter((line) => line.msg === "request" || line.msg === "write");

/** Waits until the process has exited and its output has been read to the end. */
async function ended(server: RunningServer): Promise<void> {
  if (server.process.stdout!.readableEnded) return;
  await once(server.process, "close");
}

async function stopWith(server: RunningServer, signal: "SIGTERM" | "SIGINT"): Promise<void> {
  server.process.kill(signal);
  await ended(server);
}

/** Sends requests of every kind, 20 at a time: shows (each of its own path), creates, refusals. */
async function traffic(url: string, count: number): Promise<{ paths: string[]; created: number[] }> {
  const paths: string[] = [];
  const created: number[] = [];
  const send = async (index: number) => {
    const headers = { "x-api-signature": KEY, "x-custom": HEADER_SECRET };
    if (index % 10 === 3) {
      const answer = await fetch(`${url}/blog/users/v1/create?note=${HEADER_SECRET}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ name: `Logged ${index}`, email: `logged-${index}@example.com` }),
      });
      expect(answer.status).toBe(201);
      created.push(((await answer.json()) as { data: { id: number } }).data.id);
      paths.push("/blog/users/v1/create");
      return;
    }
    const path = `/blog/users/v1/show/${100_000 + index}`;
    const key = index % 10 === 7 ? WRONG_KEY : KEY;
    const answer = await fetch(`${url}${path}?key=${key}`, { headers: { ...headers, "x-api-signature": key } });
    expect(answer.status).toBe(key === KEY ? 404 : 401);
    await answer.arrayBuffer();
    paths.push(path);
  };
  for (let start = 0; start < count; start += 20) {
    await Promise.all(Array.from({ length: Math.min(20, count - start) }, (_, offset) => send(start + offset)));
  }
  return { paths, created };
}

/** Each request exactly once, with its content, and nothing of a key, a header or a query string. */
function expectEachOnce(output: string, sent: { paths: string[]; created: number[] }) {
  const lines = requestLines(output);
  expect(lines).toHaveLength(sent.paths.length);
  expect(lines.map((line) => line.path).sort()).toEqual([...sent.paths].sort());
  expect(new Set(lines.map((line) => line.reqId)).size).toBe(lines.length);
  const writes = lines.filter((line) => line.msg === "write");
  expect(writes.map((line) => line.id).sort()).toEqual([...sent.created].sort());
  for (const line of writes) {
    expect(line).toMatchObject({ method: "POST", status: 201, key: "API_SIGNATURE_KEY", action: "create" });
    expect(line).toMatchObject({ table: "users", version: "v1" });
  }
  for (const line of lines) {
    expect(Object.keys(line)).toEqual(
      line.msg === "write"
        ? ["level", "time", "reqId", "method", "path", "status", "ms", "key", "action", "table", "id", "version", "msg"]
        : ["level", "time", "reqId", "method", "path", "status", "ms", "msg"],
    );
    expect(line.level).toBe(30);
    expect(typeof line.ms).toBe("number");
  }
  for (const secret of [KEY, WRONG_KEY, HEADER_SECRET, "?"]) expect(output).not.toContain(secret);
}

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`request logs on ${database}`, () => {
    let dir: string;
    let db: LiveDatabase;

    beforeAll(async () => {
      dir = (await sharedExample("blog", database)).dir;
      db = await exampleDatabase("blog", database);
    });

    it("writes every request of a run exactly once by the end of a SIGTERM, each line whole", async () => {
      const server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, ...HELD });
      // More lines than one buffer holds (16 KiB): some are written as it fills, the rest at the stop.
      const sent = await traffic(server.url, 300);
      await stopWith(server, "SIGTERM");
      expectEachOnce(server.output(), sent);
      expect(server.output()).toContain('"msg":"SIGTERM received: finishing in-flight requests"');
    });
  });
}

describe("request logs on SQLite", () => {
  let dir: string;
  let db: LiveDatabase;
  const servers: RunningServer[] = [];
  const start = async (env: Record<string, string>) => {
    const server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, ...env });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    dir = (await sharedExample("blog", "sqlite")).dir;
    db = await exampleDatabase("blog", "sqlite");
  });

  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it("holds the lines in the buffer while it is not full, and writes each once on SIGINT", async () => {
    const server = await start(HELD);
    const sent = await traffic(server.url, 20);
    // Twenty lines fill no buffer and the timer waits a minute: none is written yet.
    expect(requestLines(server.output())).toEqual([]);
    await stopWith(server, "SIGINT");
    expectEachOnce(server.output(), sent);
    expect(server.output()).toContain('"msg":"SIGINT received: finishing in-flight requests"');
  });

  it("writes the lines of a quiet server within LOG_FLUSH_MS, while it runs", async () => {
    const server = await start({ LOG_LEVEL: "info", LOG_FLUSH_MS: "50" });
    const sent = await traffic(server.url, 3);
    // Three shows: three lines, written by the timer while the server runs (waited on, not timed).
    await server.waitForOutput('"msg":"request"', 3);
    expect(server.process.exitCode).toBe(null);
    await server.stop();
    expectEachOnce(server.output(), sent);
  });

  it("writes each line at once with LOG_FLUSH_MS=0 (no buffer)", async () => {
    const server = await start({ LOG_LEVEL: "info", LOG_FLUSH_MS: "0" });
    const sent = await traffic(server.url, 1);
    await server.waitForOutput('"msg":"request"', 1);
    await server.stop();
    expectEachOnce(server.output(), sent);
  });

  it("writes what was logged before a failed start (its port taken)", async () => {
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const { port } = taken.address() as { port: number };
    const secret = "expired-secret-0123456789";
    const hash = createHash("sha256").update(secret).digest("hex");
    const result = await execa(START[0], START.slice(1), {
      cwd: dir,
      reject: false,
      env: {
        ...HELD,
        DATABASE_URL: db.url,
        API_SIGNATURE_KEY: KEY,
        API_KEY_OLD: `sha256:${hash};scope=*:write;expires=2020-01-01T00:00:00Z`,
        HOST: "127.0.0.1",
        PORT: String(port),
      },
    });
    taken.close();
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("EADDRINUSE");
    expect(logLines(result.stdout)).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "API_KEY_OLD expired on 2020-01-01T00:00:00.000Z: it is refused (401)",
      }),
    ]);
    expect(result.stdout).not.toContain(hash);
  });

  it.each([
    ["1s", 'Cannot start: LOG_FLUSH_MS must be a whole number, not "1s"'],
    ["-5", 'Cannot start: LOG_FLUSH_MS must be a whole number, not "-5"'],
    ["60001", "Cannot start: LOG_FLUSH_MS must be at most 60000 (milliseconds), not 60001"],
  ])("refuses to start with LOG_FLUSH_MS=%s, saying why", async (value, message) => {
    const result = await execa(START[0], START.slice(1), {
      cwd: dir,
      reject: false,
      env: { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, PORT: "0", HOST: "127.0.0.1", LOG_FLUSH_MS: value },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(message);
    expect(result.stdout).toBe("");
  });

  it("refuses to start with a LOG_LEVEL pino does not know, saying why", async () => {
    const result = await execa(START[0], START.slice(1), {
      cwd: dir,
      reject: false,
      env: { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "verbose" },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      'Cannot start: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "verbose"',
    );
  });
});

describe("your code's lines", () => {
  let dir: string;

  beforeAll(async () => {
    const shared = await sharedExample("blog", "sqlite");
    dir = join(await scratchDir("logs-custom"), "server");
    await cp(shared.dir, dir, { recursive: true });
    await mkdir(join(dir, "src/custom"), { recursive: true });
    // Your own routes: one that logs through request.log, one that logs, answers, then throws outside any request.
    await writeFile(
      join(dir, "src/custom/routes.ts"),
      `import type { FastifyPluginAsync } from "fastify";
import { found } from "../http/envelope.js";

const routes: FastifyPluginAsync = async (app) => {
  app.get("/noted", async (request) => {
    request.log.debug("below every level here");
    request.log.warn({ marker: "noted" }, "your warning");
    return found({ noted: true });
  });
  app.get("/explode", async (request) => {
    request.log.info({ marker: "about to explode" }, "your line");
    setTimeout(() => {
      app.log.warn("the last line before the error");
      throw new Error("thrown outside any request");
    }, 1);
    return found({ exploding: true });
  });
};

export default routes;
`,
    );
    await transpile(dir);
  });

  it("carry the request's id at warn too, where requests are not logged, and a write has a line of its own", async () => {
    const db = await exampleDatabase("blog", "sqlite");
    const server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, LOG_LEVEL: "warn" });
    answersOutsideDocuments(server.url);
    const answer = await fetch(`${server.url}/blog/noted`, { headers: { "x-api-signature": KEY } });
    expect(answer.status).toBe(200);
    const created = await fetch(`${server.url}/blog/users/v1/create`, {
      method: "POST",
      headers: { "x-api-signature": KEY, "content-type": "application/json" },
      body: JSON.stringify({ name: "Audited", email: "audited@example.com" }),
    });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { data: { id: number } }).data;
    await server.stop();
    const lines = logLines(server.output());
    expect(lines).toEqual([
      {
        level: 40,
        time: expect.any(Number),
        reqId: expect.stringMatching(/^req-/),
        marker: "noted",
        msg: "your warning",
      },
      {
        level: 30,
        time: expect.any(Number),
        reqId: expect.stringMatching(/^req-/),
        key: "API_SIGNATURE_KEY",
        action: "create",
        table: "users",
        id,
        version: "v1",
        msg: "write",
      },
    ]);
    expect(Object.keys(lines[1]!)).toEqual([
      "level",
      "time",
      "reqId",
      "key",
      "action",
      "table",
      "id",
      "version",
      "msg",
    ]);
  });

  it("are written before the process exits on an uncaught error, with the lines held before them", async () => {
    const db = await exampleDatabase("blog", "sqlite");
    const server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, ...HELD });
    answersOutsideDocuments(server.url);
    const sent = await traffic(server.url, 5);
    const answer = await fetch(`${server.url}/blog/explode`, { headers: { "x-api-signature": KEY } });
    expect(answer.status).toBe(200);
    await ended(server);
    expect(server.process.exitCode).toBe(1);
    expect(server.output()).toContain("Error: thrown outside any request");
    const lines = logLines(server.output().replace(/^(?!\{).*$/gm, ""));
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 30, reqId: expect.any(String), marker: "about to explode", msg: "your line" }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, msg: "the last line before the error" }));
    // The lines of the requests before it, held in the buffer, are written too.
    for (const path of sent.paths.filter((path) => path.includes("/show/"))) {
      expect(lines.filter((line) => line.path === path)).toHaveLength(1);
    }
    // In the order they were logged: a request's line is held as its fields and made later, but
    // before any line logged after it (here, your route's).
    const yours = lines.findIndex((line) => line.msg === "your line");
    const before = lines.slice(0, yours).filter((line) => sent.paths.includes(line.path as string));
    expect(before).toHaveLength(sent.paths.length);
  });
});
