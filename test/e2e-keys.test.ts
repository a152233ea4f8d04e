import { createHash } from "node:crypto";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { scratchDir } from "./helpers/generate.ts";
import { answersOutsideDocuments, client, failure, type Client } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { START, startTranspiled, transpile, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Keys that can be handed out (issue 29), over real HTTP on both databases: the generated blog
// server with API_SIGNATURE_KEY (two keys: a rotation) and API_KEY_<NAME> keys of every kind,
// written into its environment as `tablegen keys new` writes them into .env. Every answer is
// checked against the server's OpenAPI documents (test/helpers/http.ts).

const MAIN = ["main-key-0123456789", "rotated-key-9876543210"] as const;
/** A category id no record has (PostgreSQL refuses a query parameter that is no uuid where one is compared). */
const NO_CATEGORY = "00000000-0000-4000-8000-000000000000";
const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** The secret of each key, and its variable's settings after the hash. */
const KEYS = {
  reader: ["reader-secret-0123456789", "scope=*:read"],
  poster: ["poster-secret-0123456789", "scope=posts:write"],
  querier: ["querier-secret-0123456789", "scope=category_posts:read"],
  pinned: ["pinned-secret-0123456789", "scope=posts@v2:read, users@v2:show"],
  expired: ["expired-secret-0123456789", "scope=*:write;expires=2020-01-01T00:00:00Z"],
  later: ["later-secret-0123456789", "scope=*:write;expires=2999-01-01T00:00:00Z"],
  limited: ["limited-secret-0123456789", "scope=*:read;limit=3/day"],
  shared: ["shared-secret-0123456789", "scope=*:read;limit=4/day"],
  burst: ["burst-secret-0123456789", "scope=*:read;limit=5/day"],
  writer: ["writer-secret-0123456789", "scope=*:write"],
} as const;
type KeyName = keyof typeof KEYS;

/** The API_KEY_<NAME> variables, as .env holds them (quotes and all: the server's dotenv reader removes them). */
const keyVariables = (names: KeyName[] = Object.keys(KEYS) as KeyName[]) =>
  Object.fromEntries(
    names.map((name) => [`API_KEY_${name.toUpperCase()}`, `sha256:${sha256(KEYS[name][0])};${KEYS[name][1]}`]),
  );

type Envelope = { success: boolean; message: string; data: { id: number } & Record<string, unknown> };

/** Seconds from now to the next midnight in UTC: when a `/day` window ends. */
const secondsToMidnight = () => {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
};

/** The server's audit lines: one JSON line per write. */
const auditLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.includes('"msg":"write"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const postgresUrl = inject("postgresUrl");

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`keys on the generated blog server on ${database}`, () => {
    let dir: string;
    let db: LiveDatabase;
    let server: RunningServer;
    const servers: RunningServer[] = [];
    const as = (name: KeyName | "main" | "rotated" | "none" | string): Client => {
      const key =
        name === "main"
          ? MAIN[0]
          : name === "rotated"
            ? MAIN[1]
            : name === "none"
              ? undefined
              : name in KEYS
                ? KEYS[name as KeyName][0]
                : name;
      return client(`${server.url}/blog`, key);
    };
    const start = async (env: Record<string, string> = {}) => {
      const started = await startTranspiled(dir, {
        DATABASE_URL: db.url,
        API_SIGNATURE_KEY: MAIN.join(","),
        ...keyVariables(),
        ...env,
      });
      servers.push(started);
      return started;
    };
    const createPost = async (title = "Hello") => {
      const user = await as("main").post("/users/v1/create", {
        name: "Ada",
        email: `ada-${Math.random()}@example.com`,
      });
      expect(user.status, user.text).toBe(201);
      const post = await as("main").post("/posts/v1/create", { title, user_id: (user.body as Envelope).data.id });
      expect(post.status, post.text).toBe(201);
      return (post.body as Envelope).data;
    };

    beforeAll(async () => {
      ({ dir } = await sharedExample("blog", database));
      db = await exampleDatabase("blog", database);
      server = await start();
    });

    afterAll(async () => {
      await Promise.all(servers.map((running) => running.stop()));
    });

    it("lets the full key do everything, under each of its rotated values", async () => {
      for (const name of ["main", "rotated"]) {
        const post = await createPost(`by ${name}`);
        const api = as(name);
        expect((await api.get("/posts/v1/list")).status).toBe(200);
        expect((await api.get(`/posts/v1/show/${post.id}`)).status).toBe(200);
        expect((await api.post(`/posts/v1/update/${post.id}`, { title: "Changed" })).status).toBe(200);
        expect((await api.get(`/v1/category_posts?category_id=${NO_CATEGORY}`)).status).toBe(200);
        expect((await api.del(`/posts/v1/delete/${post.id}`)).body).toEqual({
          success: true,
          message: "Record deleted successfully.",
        });
      }
    });

    it("lets a read-only key list, show and query, and refuses each write with 403", async () => {
      const post = await createPost();
      const reader = as("reader");
      const list = await reader.get("/posts/v1/list");
      expect(list.status).toBe(200);
      expect((list.body as { data: { id: number }[] }).data.map((record) => record.id)).toContain(post.id);
      expect((await reader.get(`/posts/v2/show/${post.id}`)).body).toMatchObject({
        success: true,
        data: { id: post.id },
      });
      expect((await reader.request("HEAD", "/users/v1/list")).status).toBe(200);
      expect((await reader.get("/v2/recent_posts?since=2020-01-01T00:00:00Z&published=false")).status).toBe(200);
      const refused = [
        [
          await reader.post("/posts/v1/create", { title: "No", user_id: post.user_id }),
          "This key may not create posts.",
        ],
        [await reader.post(`/posts/v1/update/${post.id}`, { title: "No" }), "This key may not update posts."],
        [await reader.del(`/posts/v1/delete/${post.id}`), "This key may not delete posts."],
        [
          await reader.post("/users/v2/create", { name: "No", email: "no@example.com" }),
          "This key may not create users.",
        ],
        [await reader.del("/comments/v2/delete/1"), "This key may not delete comments."],
      ] as const;
      for (const [answer, message] of refused) {
        expect(answer.status).toBe(403);
        expect(answer.body).toEqual(failure(message));
        expect(answer.text).not.toContain(KEYS.reader[0]);
      }
      // Refused before anything else ran: the record is as it was.
      expect((await as("main").get(`/posts/v1/show/${post.id}`)).body).toMatchObject({ data: { title: "Hello" } });
    });

    it("lets a table-scoped key reach its table only", async () => {
      const poster = as("poster");
      const { user_id } = await createPost();
      const created = await poster.post("/posts/v2/create", { title: "Mine", user_id });
      expect(created.status).toBe(201);
      const id = (created.body as Envelope).data.id;
      expect((await poster.get(`/posts/v1/show/${id}`)).status).toBe(200);
      expect((await poster.post(`/posts/v1/update/${id}`, { title: "Still mine" })).status).toBe(200);
      expect((await poster.del(`/posts/v1/delete/${id}`)).status).toBe(200);
      expect((await poster.get("/users/v1/list")).body).toEqual(failure("This key may not list users."));
      expect((await poster.get(`/users/v1/show/${user_id}`)).body).toEqual(failure("This key may not show users."));
      expect((await poster.get(`/v1/category_posts?category_id=${NO_CATEGORY}`)).body).toEqual(
        failure("This key may not run the category_posts query."),
      );
    });

    it("lets a key scoped to a custom query run it in every version, and nothing else", async () => {
      const querier = as("querier");
      expect((await querier.get(`/v1/category_posts?category_id=${NO_CATEGORY}`)).body).toEqual({
        success: true,
        message: "Data found.",
        data: [],
      });
      expect((await querier.get(`/v2/category_posts?category_id=${NO_CATEGORY}`)).status).toBe(200);
      expect((await querier.get("/v2/recent_posts?since=2020-01-01T00:00:00Z&published=true")).body).toEqual(
        failure("This key may not run the recent_posts query."),
      );
      expect((await querier.get("/posts/v1/list")).body).toEqual(failure("This key may not list posts."));
    });

    it("holds a key pinned to a version to it, and says which version in its 403", async () => {
      const post = await createPost();
      const pinned = as("pinned");
      expect((await pinned.get("/posts/v2/list")).status).toBe(200);
      expect((await pinned.get(`/users/v2/show/${post.user_id}`)).status).toBe(200);
      expect((await pinned.get("/posts/v1/list")).body).toEqual(failure("This key may not list posts in v1."));
      expect((await pinned.get("/users/v2/list")).body).toEqual(failure("This key may not list users in v2."));
    });

    it("answers 401 to an expired, unknown or missing key, and takes a key until it expires", async () => {
      const refused = failure("Invalid or missing API signature key");
      for (const name of [
        "expired",
        "none",
        "unknown-key",
        sha256(KEYS.reader[0]),
        `sha256:${sha256(KEYS.reader[0])}`,
      ]) {
        const answer = await as(name).get("/posts/v1/list");
        expect(answer.status, name).toBe(401);
        expect(answer.body).toEqual(refused);
      }
      expect((await as("later").get("/posts/v1/list")).status).toBe(200);
      expect(server.output()).toContain("API_KEY_EXPIRED expired on 2020-01-01T00:00:00.000Z: it is refused (401)");
    });

    it("keeps the contract's order: 404 and 405 before the scope, the documents for every key", async () => {
      const reader = as("reader");
      expect((await reader.get("/nothing/v1/list")).body).toEqual(failure("Data not found"));
      expect((await reader.get("/comments/v1/list")).body).toEqual(failure("Data not found"));
      const wrongMethod = await reader.request("PUT", "/posts/v1/delete/1");
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get("allow")).toBe("DELETE");
      expect((await as("querier").get("/v1/openapi.json")).status).toBe(200);
    });

    it("limits a key to its count per window with 429 and Retry-After, and leaves keys without a limit alone", async () => {
      const limited = as("limited");
      for (let i = 0; i < 3; i++) expect((await limited.get("/posts/v1/list")).status).toBe(200);
      const answer = await limited.get("/posts/v1/list");
      expect(answer.status).toBe(429);
      expect(answer.body).toEqual(failure("Too many requests"));
      const retryAfter = Number(answer.headers.get("retry-after"));
      expect(Math.abs(retryAfter - secondsToMidnight())).toBeLessThan(3);
      // Refused by scope before it is counted, and still refused.
      expect((await limited.del("/posts/v1/delete/1")).status).toBe(403);
      expect((await limited.get("/users/v1/list")).status).toBe(429);
      for (let i = 0; i < 5; i++) expect((await as("reader").get("/posts/v1/list")).status).toBe(200);
    });

    it("lets exactly the limit through when a key's requests arrive at once", async () => {
      const burst = as("burst");
      const answers = await Promise.all(Array.from({ length: 12 }, () => burst.get("/users/v1/list")));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
    });

    it.runIf(database === "postgresql")(
      "shares a key's limit between the server processes of one PostgreSQL database",
      async () => {
        const other = await start();
        const here = as("shared");
        const there = client(`${other.url}/blog`, KEYS.shared[0]);
        const statuses = [];
        for (const api of [here, there, here, there]) statuses.push((await api.get("/users/v1/list")).status);
        expect(statuses).toEqual([200, 200, 200, 200]);
        expect((await there.get("/users/v1/list")).status).toBe(429);
        expect((await here.get("/users/v1/list")).status).toBe(429);
        expect(await db.value(`SELECT "hits" FROM "_tablegen_rate_limits" WHERE "key" = 'blog/shared/86400'`)).toBe(6);
      },
    );

    it("logs one audit line per write with the key's name, table, id and version, and never a secret", async () => {
      const writer = as("writer");
      const { user_id } = await createPost();
      const created = await writer.post("/posts/v2/create", { title: "Audited", user_id });
      const id = (created.body as Envelope).data.id;
      await writer.post(`/posts/v1/update/${id}`, { title: "Audited again" });
      await writer.del(`/posts/v2/delete/${id}`);
      // A write that finds nothing, or that is refused, writes no line.
      await writer.del(`/posts/v2/delete/${id}`);
      await as("reader").del(`/posts/v2/delete/${id}`);
      await as("main").del(`/users/v1/delete/${user_id}`);
      await printed(server, (output) =>
        auditLines(output).some((line) => line.table === "users" && line.action === "delete"),
      );
      const lines = auditLines(server.output());
      const mine = lines.filter((line) => line.id === id && line.table === "posts");
      expect(mine.map(({ key, action, table, id, version }) => ({ key, action, table, id, version }))).toEqual([
        { key: "writer", action: "create", table: "posts", id, version: "v2" },
        { key: "writer", action: "update", table: "posts", id, version: "v1" },
        { key: "writer", action: "delete", table: "posts", id, version: "v2" },
      ]);
      expect(mine.every((line) => line.level === 30 && typeof line.reqId === "string")).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ key: "API_SIGNATURE_KEY", action: "delete", table: "users", id: user_id }),
      );
      const output = server.output();
      for (const secret of [...MAIN, ...Object.values(KEYS).map(([secret]) => secret)]) {
        expect(output).not.toContain(secret);
      }
    });
  });
}

describe("keys on a SQLite server: start-up, your own routes, AUDIT_LOG=off", () => {
  let dir: string;
  let db: LiveDatabase;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    const shared = await sharedExample("blog", "sqlite");
    dir = join(await scratchDir("keys-custom"), "server");
    await cp(shared.dir, dir, { recursive: true });
    await mkdir(join(dir, "src/custom"), { recursive: true });
    await writeFile(
      join(dir, "src/custom/routes.ts"),
      `import type { FastifyPluginAsync } from "fastify";
import { found } from "../http/envelope.js";

const routes: FastifyPluginAsync = async (app) => {
  app.get("/hello", async () => found({ greeting: "hello" }));
  app.get("/whoami", { config: { keys: "any" } }, async (request) => found({ key: request.apiKey?.name ?? "full" }));
};

export default routes;
`,
    );
    await transpile(dir);
    db = await exampleDatabase("blog", "sqlite");
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  const refusedStart = (env: Record<string, string>) =>
    execa(START[0], START.slice(1), {
      cwd: dir,
      env: { PORT: "0", DATABASE_URL: db.url, API_SIGNATURE_KEY: MAIN[0], ...env },
      reject: false,
    });

  it.each([
    [
      { API_KEY_WEB: "the-secret-itself" },
      `Cannot start: API_KEY_WEB: must start with sha256:<64 hex digits>, the SHA-256 of the key's secret ("tablegen keys new" writes it)`,
    ],
    [
      { API_KEY_WEB: `sha256:${sha256("x")};scope=posts:read,nothing:read,posts@v9:read` },
      'Cannot start: API_KEY_WEB: scope entry "nothing:read": nothing is no table or query of blog; ' +
        'scope entry "posts@v9:read": v9 is no version of blog (v1, v2)',
    ],
    [
      { API_KEY_WEB: `sha256:${sha256("x")};scope=posts:read;limit=lots` },
      'Cannot start: API_KEY_WEB: limit "lots" is not a number of requests per second, minute, hour or day, such as 100/min (1 to 1000000000)',
    ],
    [{ AUDIT_LOG: "no" }, 'Cannot start: AUDIT_LOG must be on or off, not "no"'],
  ])("refuses to start with a bad key or setting, in one line naming it: %j", async (env, message) => {
    const result = await refusedStart(env);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(message);
  });

  it("keeps your own routes to the full key, unless a route takes every key and asks which", async () => {
    const server = await startTranspiled(dir, {
      DATABASE_URL: db.url,
      API_SIGNATURE_KEY: MAIN[0],
      ...keyVariables(["reader"]),
    });
    servers.push(server);
    answersOutsideDocuments(server.url);
    const reader = client(`${server.url}/blog`, KEYS.reader[0]);
    expect((await reader.get("/hello")).body).toEqual(failure("This key may not call GET /blog/hello."));
    expect((await reader.get("/whoami")).body).toEqual({
      success: true,
      message: "Data found.",
      data: { key: "reader" },
    });
    const full = client(`${server.url}/blog`, MAIN[0]);
    expect((await full.get("/hello")).status).toBe(200);
    expect((await full.get("/whoami")).body).toMatchObject({ data: { key: "full" } });
  });

  it("makes a write's request line its audit line where requests are logged (LOG_LEVEL=info)", async () => {
    const server = await startTranspiled(dir, {
      DATABASE_URL: db.url,
      API_SIGNATURE_KEY: MAIN[0],
      ...keyVariables(["writer"]),
      LOG_LEVEL: "info",
    });
    servers.push(server);
    answersOutsideDocuments(server.url);
    const writer = client(`${server.url}/blog`, KEYS.writer[0]);
    const user = await writer.post("/users/v2/create", { name: "Logged", email: "logged@example.com" });
    const id = (user.body as Envelope).data.id;
    await writer.get(`/users/v2/show/${id}`);
    await printed(server, (output) => output.includes(`"path":"/blog/users/v2/show/${id}"`));
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"path":"/blog/users/v2/'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines.map(({ msg, method, path, status, key, action, table, id, version }) => ({
        msg,
        method,
        path,
        status,
        key,
        action,
        table,
        id,
        version,
      })),
    ).toEqual([
      {
        msg: "write",
        method: "POST",
        path: "/blog/users/v2/create",
        status: 201,
        key: "writer",
        action: "create",
        table: "users",
        id,
        version: "v2",
      },
      {
        msg: "request",
        method: "GET",
        path: `/blog/users/v2/show/${id}`,
        status: 200,
        key: undefined,
        action: undefined,
        table: undefined,
        id: undefined,
        version: undefined,
      },
    ]);
    expect(typeof lines[0]!.reqId).toBe("string");
    expect(server.output()).not.toContain(KEYS.writer[0]);
  });

  it("writes no audit line with AUDIT_LOG=off", async () => {
    const server = await startTranspiled(dir, {
      DATABASE_URL: db.url,
      API_SIGNATURE_KEY: MAIN[0],
      AUDIT_LOG: "off",
      LOG_LEVEL: "info",
    });
    servers.push(server);
    answersOutsideDocuments(server.url);
    const api = client(`${server.url}/blog`, MAIN[0]);
    const user = await api.post("/users/v1/create", { name: "Quiet", email: "quiet@example.com" });
    expect(user.status).toBe(201);
    await printed(server, (output) => output.includes('"path":"/blog/users/v1/create"'));
    expect(auditLines(server.output())).toEqual([]);
  });
});

/** Waits until what a server printed meets a condition (its lines arrive through a pipe, as it writes them). */
async function printed(server: RunningServer, condition: (output: string) => boolean): Promise<void> {
  const { stdout } = server.process;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!condition(server.output())) return;
      stdout!.off("data", check);
      resolve();
    };
    stdout!.on("data", check);
    check();
  });
}
