import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { tablegen } from "./helpers/command.ts";
import { scratchDir } from "./helpers/generate.ts";
import { alternating, client, failure, type Answer, type Client } from "./helpers/http.ts";
import { createDatabase } from "./helpers/pg-database.ts";
import { PGBOUNCER, startPgBouncer, throughBouncer, type PgBouncer } from "./helpers/pgbouncer.ts";
import { findPostgres, startPostgres, startReplica, type PostgresServer } from "./helpers/postgres.ts";
import { migrate, startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Outgrowing one machine (issue 30): generated PostgreSQL servers behind PgBouncer in transaction
// mode, `tablegen migrate` next to it, and a primary with a streaming replica, all real and on
// loopback, started here and stopped by watchdogs however the run ends. The contract, list and
// hooks suites run through PgBouncer too (test/e2e.test.ts, e2e-list, e2e-custom).

const KEY = "scale-out-key-0123456789";
const postgresUrl = inject("postgresUrl");
const bin = findPostgres();

type Envelope<T> = { success: boolean; message: string; data: T };
type User = { id: number; name: string; email: string };

const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  try {
    return (await connection.query<Row>(text)).rows;
  } finally {
    await connection.end();
  }
}

describe.skipIf(!postgresUrl || !PGBOUNCER)("behind PgBouncer in transaction mode (2 server connections)", () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    bouncer = await startPgBouncer(postgresUrl, 2);
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  let api: Client;

  it("two server processes answer 50 concurrent clients with no error", async () => {
    const db = await exampleDatabase("blog", "postgresql");
    // Sessions in a zone whose offset in the year 1 is +05:53:28 (local mean time): nothing relies on UTC.
    await db.exec(`ALTER DATABASE "${new URL(db.url).pathname.slice(1)}" SET timezone TO 'Asia/Kolkata'`);
    const { dir } = await sharedExample("blog", "postgresql");
    const env = {
      DATABASE_URL: throughBouncer(db.url, bouncer),
      DATABASE_POOLER: "transaction",
      API_SIGNATURE_KEY: KEY,
    };
    const pair = await Promise.all([startTranspiled(dir, env), startTranspiled(dir, env)]);
    servers.push(...pair);
    api = alternating(pair.map((server) => client(`${server.url}/blog`, KEY)));
    const category = ((await api.post("/categories/v1/create", { name: "Scale" })).body as Envelope<{ id: string }>)
      .data.id;

    // Each client: create, show, a filtered page, update, a custom query, delete; twice over.
    const unexpected: string[] = [];
    const check = (what: string, answer: Answer, status: number) => {
      if (answer.status !== status) unexpected.push(`${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
      return answer;
    };
    await Promise.all(
      Array.from({ length: 50 }, async (_, clientIndex) => {
        for (let round = 0; round < 2; round++) {
          const email = `c${clientIndex}-r${round}@example.com`;
          const created = check("create", await api.post("/users/v1/create", { name: "Ada", email }), 201);
          const id = (created.body as Envelope<User>).data?.id;
          check("show", await api.get(`/users/v1/show/${id}`), 200);
          const page = check(
            "list",
            await api.get(`/users/v1/list?email=${encodeURIComponent(email)}&count=true`),
            200,
          );
          if ((page.body as Envelope<User[]>).data?.[0]?.id !== id) unexpected.push(`list: ${page.text}`);
          check("update", await api.post(`/users/v1/update/${id}`, { name: `Ada ${round}` }), 200);
          check("query", await api.get(`/v1/category_posts?category_id=${category}`), 200);
          check("delete", await api.del(`/users/v1/delete/${id}`), 200);
        }
      }),
    );
    expect(unexpected).toEqual([]);
  });

  it("answers date-times exactly whatever the session's time zone, the years 1 and 9999 too", async () => {
    const user = (
      (await api.post("/users/v1/create", { name: "Time", email: "time@example.com" })).body as Envelope<User>
    ).data;
    for (const [given, stored] of [
      ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"],
      ["9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"],
      ["2024-03-10T12:30:45+05:30", "2024-03-10T07:00:45Z"],
    ]) {
      const created = await api.post("/posts/v1/create", { title: given, user_id: user.id, published_at: given });
      const post = (created.body as Envelope<{ id: number; published_at: string }>).data;
      expect(post.published_at).toBe(stored);
      const shown = (await api.get(`/posts/v1/show/${post.id}`)).body as Envelope<{ published_at: string }>;
      expect(shown.data.published_at).toBe(stored);
      const listed = (await api.get(`/posts/v1/list?published_at=${encodeURIComponent(stored!)}`)).body as Envelope<
        { id: number }[]
      >;
      expect(listed.data.map((row) => row.id)).toContain(post.id);
    }
    // The whole table, as PostgreSQL writes its JSON (to_char … AT TIME ZONE 'UTC').
    const whole = ((await api.get("/posts/v1/list")).body as Envelope<{ published_at: string }[]>).data;
    expect(whole.map((post) => post.published_at)).toEqual(
      expect.arrayContaining(["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2024-03-10T07:00:45Z"]),
    );
  });

  describe("tablegen migrate", () => {
    let project: string;
    let direct: string;
    beforeAll(async () => {
      project = await scratchDir("migrate-pooler");
      const manifest = "project: shop\ndatabase: postgresql\ntables:\n  items:\n    fields:\n      name: TEXT\n";
      await writeFile(join(project, "tablegen.yaml"), manifest);
      expect((await tablegen(["generate"], project)).exitCode).toBe(0);
      direct = await createDatabase(postgresUrl, "migrate_pooler");
    });

    it(
      "refuses a DATABASE_URL that leads through the pooler at once, naming DIRECT_DATABASE_URL",
      { timeout: 30_000 },
      async () => {
        const result = await tablegen(["migrate"], project, { DATABASE_URL: throughBouncer(direct, bouncer) });
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toBe(
          "tablegen: DATABASE_URL (from the environment) leads through a connection pooler, which migrations cannot go through: set DIRECT_DATABASE_URL to the database's own address (the server keeps DATABASE_URL)",
        );
        // Nothing was applied (nor written).
        expect(await query(direct, "SELECT to_regclass('_prisma_migrations') AS t")).toEqual([{ t: null }]);
      },
    );

    it(
      "refuses a DIRECT_DATABASE_URL that leads through a pooler too, and says where it was set",
      { timeout: 30_000 },
      async () => {
        await writeFile(join(project, ".env"), `DIRECT_DATABASE_URL=${throughBouncer(direct, bouncer)}\n`);
        const result = await tablegen(["migrate"], project, { DATABASE_URL: direct });
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toBe(
          "tablegen: DIRECT_DATABASE_URL (from .env) leads through a connection pooler, which migrations cannot go through: set it to the database's own address",
        );
      },
    );

    it("applies the migrations to DIRECT_DATABASE_URL, DATABASE_URL staying the pooler's", async () => {
      await writeFile(join(project, ".env"), "");
      const env = { DATABASE_URL: throughBouncer(direct, bouncer), DIRECT_DATABASE_URL: direct };
      const result = await tablegen(["migrate"], project, env);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Applied pending migrations to ${direct}.`);
      const applied = await query<{ migration_name: string }>(direct, "SELECT migration_name FROM _prisma_migrations");
      expect(applied.map((row) => row.migration_name)).toEqual([expect.stringMatching(/_init$/)]);
    });
  });
});

describe("the server's pooler and replica settings", () => {
  it("stop the start with one line when they are wrong", async () => {
    const { dir } = await sharedExample("blog", "postgresql");
    const start = async (env: Record<string, string>) => {
      const server = startTranspiled(dir, {
        DATABASE_URL: "postgresql://127.0.0.1:1/none",
        API_SIGNATURE_KEY: KEY,
        ...env,
      });
      return server.then(
        (running) => (servers.push(running), "started"),
        (error: Error) => error.message,
      );
    };
    expect(await start({ DATABASE_POOLER: "session" })).toContain(
      'Cannot start: DATABASE_POOLER must be transaction or none, not "session"',
    );
    expect(await start({ DATABASE_REPLICA_URLS: "postgresql://a/b, mysql://secret@c/d" })).toContain(
      "Cannot start: DATABASE_REPLICA_URLS: entry 2 is not a postgresql:// URL",
    );
    expect(await start({ REPLICA_MAX_LAG_MS: "soon" })).toContain(
      'Cannot start: REPLICA_MAX_LAG_MS must be a whole number, not "soon"',
    );
  });
});

describe.skipIf(!postgresUrl || !bin)("a primary and a streaming replica", () => {
  let primary: PostgresServer;
  let replica: PostgresServer;
  let primaryDb: string;
  let replicaDb: string;
  let dir: string;

  beforeAll(async () => {
    // A PostgreSQL server of this file's own: its replica copies all of it.
    primary = await startPostgres(bin!);
    primaryDb = await createDatabase(primary.url, "primary");
    dir = (await sharedExample("blog", "postgresql")).dir;
    // The server's own `npm run migrate` takes DIRECT_DATABASE_URL over DATABASE_URL (which leads nowhere here).
    await migrate(dir, { DATABASE_URL: "postgresql://127.0.0.1:1/nowhere", DIRECT_DATABASE_URL: primaryDb });
    replica = await startReplica(bin!, primary.url);
    replicaDb = `${replica.url}${new URL(primaryDb).pathname}`;
  });
  afterAll(async () => {
    await replica?.stop();
    await primary?.stop();
  });

  const start = async (env: Record<string, string> = {}) => {
    const server = await startTranspiled(dir, {
      DATABASE_URL: primaryDb,
      DATABASE_REPLICA_URLS: replicaDb,
      API_SIGNATURE_KEY: KEY,
      LOG_LEVEL: "info",
      ...env,
    });
    servers.push(server);
    return server;
  };
  const health = async (server: RunningServer) => (await fetch(`${server.url}/blog/health`)).json();
  type Health = Envelope<{ primary: string; replicas: { name: string; state: string; lagMs?: number }[] }>;
  /** Waits until the health route says `state` of the replica: its background check runs every second. */
  const replicaState = async (server: RunningServer, state: string) => {
    for (;;) {
      const answer = (await health(server)) as Health;
      if (answer.data.replicas?.[0]?.state === state) return answer;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** The server's log lines that hold `part`. */
  const lines = (server: RunningServer, part: string) =>
    server
      .output()
      .split("\n")
      .filter((line) => line.includes(part));

  it("reads from the replica (proved by pausing its replay), writes to the primary, strong reads from the primary", async () => {
    const server = await start({ REPLICA_MAX_LAG_MS: "600000" });
    const api = client(`${server.url}/blog`, KEY);
    const strong = (path: string) => api.request("GET", path, { headers: { "x-consistency": "strong" } });
    await replicaState(server, "up");
    const category = (
      (await api.post("/categories/v1/create", { name: "Replicated" })).body as Envelope<{ id: string }>
    ).data.id;
    const first = (
      (await api.post("/users/v1/create", { name: "Ada", email: "ada@example.com" })).body as Envelope<User>
    ).data;
    await api.post("/posts/v1/create", { title: "Seen", user_id: first.id, category_id: category });
    // Replayed on the replica by now or soon: wait until a read there sees it.
    while ((await api.get(`/users/v1/show/${first.id}`)).status !== 200);
    while (((await api.get(`/v1/category_posts?category_id=${category}`)).body as Envelope<unknown[]>).data.length < 1);

    await query(replicaDb, "SELECT pg_wal_replay_pause()");
    try {
      const created = await api.post("/users/v1/create", { name: "Grace", email: "grace@example.com" });
      expect(created.status).toBe(201);
      const second = (created.body as Envelope<User>).data;
      await api.post("/posts/v1/create", { title: "Unseen", user_id: second.id, category_id: category });
      // Reads go to the replica, which has not replayed the write: the write's own answer carried the record.
      expect((await api.get(`/users/v1/show/${second.id}`)).body).toEqual(failure("Data not found"));
      const listed = (await api.get("/users/v1/list")).body as Envelope<User[]>;
      expect(listed.data.map((user) => user.id)).toEqual([first.id]);
      const rows = (await api.get(`/v1/category_posts?category_id=${category}`)).body as Envelope<unknown[]>;
      expect(rows.data).toHaveLength(1);
      // X-Consistency: strong reads the primary: the write is there.
      expect(await strong(`/users/v1/show/${second.id}`)).toMatchObject({ status: 200, body: { data: second } });
      expect(((await strong("/users/v1/list")).body as Envelope<User[]>).data.map((user) => user.id)).toEqual([
        first.id,
        second.id,
      ]);
      const strongRows = (await strong(`/v1/category_posts?category_id=${category}`)).body as Envelope<unknown[]>;
      expect(strongRows.data).toHaveLength(2);
      // An update is a write: the primary's record, whatever the replica holds.
      const updated = await api.post(`/users/v1/update/${second.id}`, { name: "Grace H." });
      expect(updated.status).toBe(200);
    } finally {
      await query(replicaDb, "SELECT pg_wal_replay_resume()");
    }
    const refused = await api.request("GET", "/users/v1/list", { headers: { "x-consistency": "latest" } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(failure("Invalid request: X-Consistency must be strong or eventual"));
    expect(
      (await api.request("GET", `/users/v1/show/${first.id}`, { headers: { "x-consistency": "eventual" } })).status,
    ).toBe(200);
  });

  it("skips a replica that lags beyond REPLICA_MAX_LAG_MS, logged once, and takes it back once it caught up", async () => {
    const server = await start({ REPLICA_MAX_LAG_MS: "100" });
    const api = client(`${server.url}/blog`, KEY);
    await replicaState(server, "up");
    await query(replicaDb, "SELECT pg_wal_replay_pause()");
    let id: number;
    try {
      id = ((await api.post("/users/v1/create", { name: "Lag", email: "lag@example.com" })).body as Envelope<User>).data
        .id;
      const lagging = await replicaState(server, "lagging");
      expect(lagging.data.replicas[0]!.lagMs).toBeGreaterThan(100);
      // The primary serves the reads meanwhile: the write is seen.
      expect((await api.get(`/users/v1/show/${id}`)).status).toBe(200);
      await replicaState(server, "lagging");
    } finally {
      await query(replicaDb, "SELECT pg_wal_replay_resume()");
    }
    await replicaState(server, "up");
    expect((await api.get(`/users/v1/show/${id}`)).status).toBe(200);
    await server.waitForOutput("replica 1 serves reads again");
    const skipped = lines(server, "replica 1 is skipped");
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(
      /"level":40,.*"msg":"replica 1 is skipped, the primary serves its reads: \d+ ms behind, more than REPLICA_MAX_LAG_MS \(100\)"/,
    );
  });

  it("answers every read while the replica stops and starts again under load; health reports both databases", async () => {
    const server = await start();
    const api = client(`${server.url}/blog`, KEY);
    expect(await replicaState(server, "up")).toEqual({
      success: true,
      message: "Healthy",
      data: { primary: "up", replicas: [{ name: "replica 1", state: "up", lagMs: expect.any(Number) }] },
    });
    const user = (
      (await api.post("/users/v1/create", { name: "Load", email: "load@example.com" })).body as Envelope<User>
    ).data;
    while ((await api.get(`/users/v1/show/${user.id}`)).status !== 200);

    // Twenty clients read without a pause until told to stop; every answer must be a 200.
    let loading = true;
    const failed: string[] = [];
    let answered = 0;
    let waiting: { count: number; resolve: () => void } | undefined;
    const answers = (count: number) => new Promise<void>((resolve) => (waiting = { count, resolve }));
    const load = Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        while (loading) {
          const answer =
            index % 2 ? await api.get(`/users/v1/show/${user.id}`) : await api.get("/users/v1/list?limit=5");
          answered++;
          if (waiting && answered >= waiting.count) waiting.resolve();
          if (answer.status !== 200) failed.push(`${answer.status} ${answer.text}`);
        }
      }),
    );
    await replica.halt();
    expect(await replicaState(server, "down")).toEqual({
      success: true,
      message: "Healthy",
      data: { primary: "up", replicas: [{ name: "replica 1", state: "down" }] },
    });
    // Two hundred answers more from the primary alone, then the replica starts again.
    await answers(answered + 200);
    await replica.resume();
    await replicaState(server, "up");
    await server.waitForOutput("replica 1 serves reads again");
    loading = false;
    await load;
    expect(failed).toEqual([]);
    expect(lines(server, "replica 1 is skipped, the primary serves its reads")).toHaveLength(1);
    expect(lines(server, "replica 1 serves reads again")).toHaveLength(1);
  });
});
