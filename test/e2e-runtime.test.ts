import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, scratchDir } from "./helpers/generate.ts";
import { client, failure } from "./helpers/http.ts";
import { START, startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// How the generated server runs: start-up checks, HTTPS, CORS, unexpected errors, shutdown,
// WAL, and Prisma Client reading and writing the same rows as the generated routes.

const KEY = "runtime-key";
/** The shared blog server: transpiled, with its Prisma Client generated; never written to. */
let dir: string;
/** The database the servers run on: a copy of the one `npm run migrate` made for the shared server. */
let database: string;
/** The shared crm server (PostgreSQL). */
let crm: string;
const servers: RunningServer[] = [];

beforeAll(async () => {
  [{ dir }, { url: database }, { dir: crm }] = await Promise.all([
    sharedExample("blog"),
    exampleDatabase("blog"),
    sharedExample("crm"),
  ]);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function start(env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startTranspiled(dir, { DATABASE_URL: database, API_SIGNATURE_KEY: KEY, ...env });
  servers.push(server);
  return server;
}

/** Runs a server that is expected to refuse to start: its exit code and what it printed. */
async function refusedStart(cwd: string, env: Record<string, string>) {
  return execa(START[0], START.slice(1), { cwd, env: { PORT: "0", ...env }, reject: false });
}

describe("start-up", () => {
  it("refuses to start without an API signature key", async () => {
    const result = await refusedStart(dir, { DATABASE_URL: database, API_SIGNATURE_KEY: " , " });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      "API_SIGNATURE_KEY is not set: the server will not start without an API signature key",
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses to start on a database that was never migrated", async () => {
    const result = await refusedStart(dir, { DATABASE_URL: "file:./missing.db", API_SIGNATURE_KEY: KEY });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the database "./missing.db" does not exist: run "npm run migrate" first');
  });

  it.each([
    [{ TLS_CERT_FILE: "cert.pem" }, "Cannot start: TLS_CERT_FILE and TLS_KEY_FILE must be set together"],
    [
      { TLS_CERT_FILE: "none.pem", TLS_KEY_FILE: "none.pem" },
      "Cannot start: cannot read the TLS certificate or key: ENOENT",
    ],
    [{ PORT: "eighty" }, 'Cannot start: PORT must be a whole number, not "eighty"'],
    [{ BODY_LIMIT: "1e6" }, 'Cannot start: BODY_LIMIT must be a whole number, not "1e6"'],
    [
      { HEADERS_TIMEOUT_MS: "20000", REQUEST_TIMEOUT_MS: "10000" },
      "Cannot start: HEADERS_TIMEOUT_MS (20000) must not be longer than REQUEST_TIMEOUT_MS (10000)",
    ],
    [{ KEEP_ALIVE_TIMEOUT_MS: "0" }, "Cannot start: KEEP_ALIVE_TIMEOUT_MS must be at least 1 (milliseconds)"],
    [{ CONNECTION_TIMEOUT_MS: "1m" }, 'Cannot start: CONNECTION_TIMEOUT_MS must be a whole number, not "1m"'],
    [{ DATABASE_BUSY_TIMEOUT_MS: "-1" }, 'Cannot start: DATABASE_BUSY_TIMEOUT_MS must be a whole number, not "-1"'],
    [
      { DATABASE_URL: "postgresql://localhost/blog" },
      'Cannot start: DATABASE_URL must be a file: URL for SQLite, not "postgresql://localhost/blog"',
    ],
  ])("refuses to start with %j, saying why", async (settings, message) => {
    const result = await refusedStart(dir, { DATABASE_URL: database, API_SIGNATURE_KEY: KEY, ...settings });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses to start a PostgreSQL server without DATABASE_URL", async () => {
    const result = await refusedStart(crm, { DATABASE_URL: "", API_SIGNATURE_KEY: KEY });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe("Cannot start: DATABASE_URL is not set: give the PostgreSQL database to use");
  });

  it("leaves the database in WAL mode after npm run migrate", () => {
    const db = new Database(database.slice("file:".length), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });
});

describe("HTTPS", () => {
  it("serves HTTPS when TLS_CERT_FILE and TLS_KEY_FILE are set", async () => {
    const scratch = await scratchDir("runtime-tls");
    const cert = join(scratch, "cert.pem");
    const key = join(scratch, "key.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    const server = await start({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
    try {
      const answer = await client(`${server.url}/blog`, KEY).get("/users/v1/list");
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: true, message: "Data found." });
    } finally {
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
    }
  });
});

describe("CORS", () => {
  it("is off by default: no CORS headers, and a preflight needs the key like anything else", async () => {
    const server = await start();
    const preflight = await fetch(`${server.url}/blog/users/v1/list`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.com", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(401);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers preflights without a key and marks responses for the allowed origins", async () => {
    const server = await start({ CORS_ORIGINS: "https://app.example.com, https://admin.example.com" });
    const preflight = await fetch(`${server.url}/blog/users/v1/create`, {
      method: "OPTIONS",
      headers: { origin: "https://admin.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://admin.example.com");
    const answer = await fetch(`${server.url}/blog/users/v1/list`, {
      headers: { origin: "https://app.example.com", "x-api-signature": KEY },
    });
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const stranger = await fetch(`${server.url}/blog/users/v1/list`, {
      headers: { origin: "https://evil.example.com", "x-api-signature": KEY },
    });
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the server's migrations (issue 16)", () => {
  it("print no warning about the schema's url, which nobody can act on, and the rest of Prisma's output", async () => {
    const file = join(await scratchDir("migrate-output"), "fresh.db");
    // What `npm run migrate` runs first, on a database of the test's own (the shared server is not written).
    const result = await execa(
      process.execPath,
      [join(REPO, "node_modules/prisma/build/index.js"), "migrate", "deploy"],
      {
        cwd: dir,
        env: { DATABASE_URL: `file:${file}`, CHECKPOINT_DISABLE: "1" },
        all: true,
      },
    );
    expect(result.all).toContain("All migrations have been successfully applied.");
    expect(result.all).not.toContain("will NOT be used");
    expect(result.all).not.toContain("WARNING");
  });
});

describe("CORS for every method of the contract (issue 16)", () => {
  it("lets a browser delete, update and read the list headers from an allowed origin", async () => {
    const server = await start({ CORS_ORIGINS: "https://app.example.com" });
    const origin = "https://app.example.com";
    for (const method of ["DELETE", "POST", "GET"]) {
      const preflight = await fetch(`${server.url}/blog/users/v1/delete/1`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": method,
          "access-control-request-headers": "x-api-signature",
        },
      });
      expect(preflight.status, method).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, PUT, PATCH, DELETE");
      expect(preflight.headers.get("access-control-allow-headers")).toBe("x-api-signature");
    }
    const api = client(`${server.url}/blog`, KEY);
    const created = await api.post("/users/v1/create", { name: "Cors", email: "cors@example.com" });
    const id = (created.body as { data: { id: number } }).data.id;
    const deleted = await fetch(`${server.url}/blog/users/v1/delete/${id}`, {
      method: "DELETE",
      headers: { origin, "x-api-signature": KEY },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("access-control-allow-origin")).toBe(origin);
    const list = await fetch(`${server.url}/blog/users/v1/list?limit=1&count=true`, {
      headers: { origin, "x-api-signature": KEY },
    });
    expect(list.headers.get("access-control-expose-headers")).toBe("Link, X-Total-Count, Retry-After");
    // With CORS on, OPTIONS is one of every path's methods.
    const wrong = await fetch(`${server.url}/blog/users/v1/list`, {
      method: "DELETE",
      headers: { "x-api-signature": KEY },
    });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

describe("the request log (issue 16)", () => {
  it("logs one line per request at info: method, path without the query, status and ms; never the key", async () => {
    const server = await start({ LOG_LEVEL: "info" });
    const api = client(`${server.url}/blog`, KEY);
    await api.get("/users/v1/list?limit=2&count=true");
    await client(`${server.url}/blog`, "wrong-key").get("/users/v1/show/1");
    await api.del("/users/v1/list");
    await server.stop();
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: "GET", path: "/blog/users/v1/list", status: 200 },
      { method: "GET", path: "/blog/users/v1/show/1", status: 401 },
      { method: "DELETE", path: "/blog/users/v1/list", status: 405 },
    ]);
    for (const line of lines) {
      expect(line.level).toBe(30);
      expect(typeof line.ms).toBe("number");
    }
    expect(server.output()).not.toContain(KEY);
    expect(server.output()).not.toContain("wrong-key");
    expect(server.output()).not.toContain("limit=2");
  });

  it("logs no request at warn (the default of the tests and the benchmarks)", async () => {
    const server = await start({ LOG_LEVEL: "warn" });
    await client(`${server.url}/blog`, KEY).get("/users/v1/list");
    await server.stop();
    expect(server.output()).not.toContain('"msg":"request"');
  });
});

describe("unexpected errors", () => {
  it("answer 500 with nothing but the envelope, and log the details", async () => {
    const broken = await exampleDatabase("blog");
    const server = await start({ LOG_LEVEL: "error", DATABASE_URL: broken.url });
    // A row written behind the server's back, holding what no date-time reads as.
    const db = new Database(broken.url.slice("file:".length));
    db.exec(`INSERT INTO "users" ("name", "email", "created_at") VALUES ('Odd', 'odd@example.com', 'not a date')`);
    db.close();
    const answer = await client(`${server.url}/blog`, KEY).get("/users/v1/list");
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual(failure("Internal server error"));
    expect(answer.text).not.toMatch(/Invalid time|RangeError|at /);
    await server.waitForOutput('"msg":"request failed"');
    expect(server.output()).toContain("Invalid time value");
  });
});

describe("graceful shutdown", () => {
  it("finishes a request in flight on SIGTERM, then exits", async () => {
    const server = await start();
    const { port } = new URL(server.url);
    const body = JSON.stringify({ name: "Late", email: "late@example.com" });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/blog/users/v1/create",
          headers: { "x-api-signature": KEY, "content-type": "application/json", "content-length": body.length },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode!, text }));
        },
      );
      request.on("error", reject);
      request.write(body.slice(0, 10));
      setTimeout(() => {
        server.process.kill("SIGTERM");
        setTimeout(() => request.end(body.slice(10)), 300);
      }, 300);
    });
    const { status, text } = await answer;
    expect(status, text).toBe(201);
    expect(JSON.parse(text)).toMatchObject({ success: true, data: { name: "Late" } });
    const [code] = (await once(server.process, "exit")) as [number | null];
    expect(code).toBe(0);
  });
});

describe("Prisma Client on the same database", () => {
  it("reads what the routes wrote, and the routes read what it wrote", async () => {
    // The shared server's Prisma Client is generated (`prisma generate`, as `npm install` runs it).
    const server = await start();
    const api = client(`${server.url}/blog`, KEY);
    const user = (
      await api.post("/users/v1/create", {
        name: "Routes",
        email: "routes@example.com",
        created_at: "2024-05-06T07:08:09+02:00",
      })
    ).body as { data: { id: number } };
    const post = (await api.post("/posts/v1/create", { title: "From routes", user_id: user.data.id, published: true }))
      .body as { data: { id: number } };

    const previous = process.env.DATABASE_URL;
    process.env.DATABASE_URL = database;
    try {
      const { prisma } = await import(join(dir, "src/prisma.ts"));
      const seen = await prisma.users.findUnique({ where: { id: user.data.id }, include: { posts: true } });
      expect(seen.created_at.toISOString()).toBe("2024-05-06T05:08:09.000Z");
      expect(seen.active).toBe(true);
      expect(seen.posts.map((p: { id: number; published: boolean }) => [p.id, p.published])).toEqual([
        [post.data.id, true],
      ]);

      const written = await prisma.users.create({
        data: {
          name: "Prisma",
          email: "prisma@example.com",
          active: false,
          created_at: new Date("2023-01-02T03:04:05.678Z"),
        },
      });
      const category = await prisma.categories.create({ data: { name: "From Prisma" } });
      await prisma.$disconnect();

      expect((await api.get(`/users/v1/show/${written.id}`)).body).toEqual({
        success: true,
        message: "Data found.",
        data: {
          id: written.id,
          name: "Prisma",
          email: "prisma@example.com",
          phone: null,
          bio: null,
          active: false,
          created_at: "2023-01-02T03:04:05Z",
        },
      });
      expect(((await api.get(`/categories/v1/show/${category.id}`)).body as { data: unknown }).data).toEqual({
        id: category.id,
        name: "From Prisma",
      });
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
    }
  });
});
