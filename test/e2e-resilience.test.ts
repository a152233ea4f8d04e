import { EventEmitter, once } from "node:events";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { failure } from "./helpers/http.ts";
import { findPostgres, startPostgres, type PostgresServer } from "./helpers/postgres.ts";
import { createDatabase } from "./helpers/pg-database.ts";
import { migrate, startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// The generated server under failing clients and infrastructure (issue 17): hundreds of slow
// clients do not lock others out; losing the database answers 503 and never ends the process,
// which serves again by itself; a kill -9 under write load loses no acknowledged write.

const KEY = "resilience-key-7d2e9b41";
const headers = { "x-api-signature": KEY, "content-type": "application/json" };
const postgresUrl = inject("postgresUrl");
const servers: RunningServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function start(dir: string, env: Record<string, string>): Promise<RunningServer> {
  const server = await startTranspiled(dir, { API_SIGNATURE_KEY: KEY, ...env });
  servers.push(server);
  return server;
}

/** A create of a user with a unique e-mail: its status and, when 201, the record. */
async function createUser(url: string, label: string): Promise<{ status: number; record?: Record<string, unknown> }> {
  const body = JSON.stringify({ name: label, email: `${label}@example.com` });
  try {
    const response = await fetch(`${url}/blog/users/v1/create`, { method: "POST", headers, body });
    const answer = (await response.json()) as { data: Record<string, unknown> };
    return { status: response.status, record: response.status === 201 ? answer.data : undefined };
  } catch {
    return { status: 0 };
  }
}

describe("slow clients", () => {
  it("hundreds of slow bodies and slowloris headers do not stop others being served, and get 408s", async () => {
    const { dir } = await sharedExample("blog");
    const db = await exampleDatabase("blog");
    const server = await start(dir, { DATABASE_URL: db.url, HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "2000" });
    const { port } = new URL(server.url);
    const SLOW = 150;

    const answers: string[] = [];
    const connected: Promise<unknown>[] = [];
    const closed: Promise<unknown>[] = [];
    const open = (first: string, drip: string): Socket => {
      // The request's start first, whenever the connection is made (on a loaded machine that can take
      // longer than a drip's interval), then a byte or a line every 200 ms from then on, until the
      // answer comes (then sending more would only earn a reset).
      const socket = connect(Number(port), "127.0.0.1");
      socket.write(first);
      let timer: NodeJS.Timeout | undefined;
      socket.once("connect", () => (timer = setInterval(() => socket.writable && socket.write(drip), 200)));
      connected.push(once(socket, "connect"));
      closed.push(once(socket, "close"));
      let text = "";
      socket.on("data", (chunk) => {
        clearInterval(timer);
        text += chunk.toString();
      });
      socket.on("error", (error: NodeJS.ErrnoException) => (text += `[${error.code}]`));
      socket.on("close", () => {
        clearInterval(timer);
        answers.push(text);
      });
      return socket;
    };
    const sockets: Socket[] = [
      // A body announced at 1000 bytes, sent a byte at a time.
      ...Array.from({ length: SLOW }, () =>
        open(
          `POST /blog/users/v1/create HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
          " ",
        ),
      ),
      // Headers that never end: one more header line at a time.
      ...Array.from({ length: SLOW }, () => open("GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n")),
    ];

    // Meanwhile, once they are all connected, others are served: the first while slow ones are still held.
    await Promise.all(connected);
    for (let index = 0; index < 20; index++) {
      const { status } = await createUser(server.url, `prompt-${index}`);
      expect(status).toBe(201);
      if (index === 0)
        expect(answers.length, "slow connections let go before the first prompt request").toBeLessThan(sockets.length);
    }

    // Every slow connection is answered 408 once the timeouts pass (checked every second), and closed.
    await Promise.all(closed);
    expect(sockets.every((socket) => socket.destroyed)).toBe(true);
    expect(answers).toHaveLength(2 * SLOW);
    const envelope = JSON.stringify(failure("Request timeout"));
    for (const text of answers) {
      expect(text.startsWith("HTTP/1.1 408 Request Timeout\r\n"), JSON.stringify(text)).toBe(true);
      expect(text.endsWith(`\r\n\r\n${envelope}`), JSON.stringify(text)).toBe(true);
    }
  });
});

describe("stalled connections", () => {
  it("closes a connection on which nothing moves for CONNECTION_TIMEOUT_MS, and leaves a waiting keep-alive one to its own timeout", async () => {
    const { dir } = await sharedExample("blog");
    const db = await exampleDatabase("blog");
    const server = await start(dir, {
      DATABASE_URL: db.url,
      CONNECTION_TIMEOUT_MS: "1500",
      KEEP_ALIVE_TIMEOUT_MS: "3500",
    });
    const { port } = new URL(server.url);
    // Eight records of 1 MB of text each less a little: a list the client cannot hold without reading.
    for (let index = 0; index < 8; index++) {
      const body = JSON.stringify({
        name: `big-${index}`,
        email: `big-${index}@example.com`,
        bio: "x".repeat(1_000_000),
      });
      const response = await fetch(`${server.url}/blog/users/v1/create`, { method: "POST", headers, body });
      expect(response.status).toBe(201);
    }
    const opened = (): Promise<{ socket: Socket; closed: Promise<number> }> =>
      new Promise((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          const started = Date.now();
          resolve({ socket, closed: once(socket, "close").then(() => Date.now() - started) });
        });
        socket.on("error", () => {});
      });

    // A client that connects and sends nothing.
    const silent = await opened();
    silent.socket.resume();
    // A client that asks for the whole table and stops reading its answer.
    const reader = await opened();
    reader.socket.write(`GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${KEY}\r\n\r\n`);
    reader.socket.pause();
    // A client that is answered, then waits on its keep-alive connection.
    const waiting = await opened();
    let answered = "";
    waiting.socket.on("data", (chunk) => (answered += chunk.toString()));
    waiting.socket.write(`GET /blog/users/v1/show/1 HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${KEY}\r\n\r\n`);

    // Closed after 1.5 s of nothing moving, found by a sweep each second.
    const silentAfter = await silent.closed;
    expect(silentAfter).toBeGreaterThanOrEqual(1400);
    expect(silentAfter).toBeLessThan(4000);
    await sleep(1500);
    let received = 0;
    reader.socket.on("data", (chunk: Buffer) => (received += chunk.length));
    reader.socket.resume();
    await reader.closed;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(8_000_000);
    // Still open past the connection timeout: its wait is the keep-alive timeout's (3.5 s).
    expect(answered.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
    expect(waiting.socket.destroyed).toBe(false);
    const waitingAfter = await waiting.closed;
    expect(waitingAfter).toBeGreaterThanOrEqual(3400);
    expect(waitingAfter).toBeLessThan(7000);
  });
});

describe("a locked SQLite database", () => {
  it("serves reads while a write waits for another process's lock, then writes (issue 25)", async () => {
    const { dir } = await sharedExample("blog");
    const db = await exampleDatabase("blog");
    const server = await start(dir, { DATABASE_URL: db.url, DATABASE_BUSY_TIMEOUT_MS: "60000" });
    expect((await createUser(server.url, "first")).status).toBe(201);
    const holder = new Database(db.url.slice("file:".length));
    holder.exec("BEGIN IMMEDIATE");
    let written = false;
    const waiting = createUser(server.url, "waiting").then((answer) => ((written = true), answer));
    // The write waits for the lock with the event loop free: reads keep being answered meanwhile.
    for (let index = 0; index < 20; index++) {
      const read = await fetch(`${server.url}/blog/users/v1/${index % 2 ? "show/1" : "list?limit=5"}`, { headers });
      expect(read.status).toBe(200);
    }
    expect(written).toBe(false);
    holder.exec("ROLLBACK");
    holder.close();
    const { status, record } = await waiting;
    expect(status).toBe(201);
    expect(record).toMatchObject({ name: "waiting" });
  });

  it("answers 503 Service unavailable while another process holds the write lock, then serves", async () => {
    const { dir } = await sharedExample("blog");
    const db = await exampleDatabase("blog");
    const server = await start(dir, { DATABASE_URL: db.url, DATABASE_BUSY_TIMEOUT_MS: "200" });
    const holder = new Database(db.url.slice("file:".length));
    holder.exec("BEGIN IMMEDIATE");
    const locked = await fetch(`${server.url}/blog/users/v1/create`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Locked", email: "locked@example.com" }),
    });
    expect(locked.status).toBe(503);
    expect(await locked.json()).toEqual(failure("Service unavailable"));
    const read = await fetch(`${server.url}/blog/users/v1/list`, { headers });
    expect(read.status).toBe(200);
    holder.exec("ROLLBACK");
    holder.close();
    expect((await createUser(server.url, "unlocked")).status).toBe(201);
  });
});

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(
    `a column dropped under a running server on ${database}`,
    () => {
      it("answers 503 saying the schema is newer than the server, and logs what to do (issue 25)", async () => {
        const { dir } = await sharedExample("blog", database);
        const db = await exampleDatabase("blog", database);
        const server = await start(dir, { DATABASE_URL: db.url });
        expect((await createUser(server.url, "before-drop")).status).toBe(201);
        // What `tablegen migrate --accept-data-loss` does to a field the manifest no longer has.
        await db.exec("ALTER TABLE users DROP COLUMN bio");
        const newer = failure("Service unavailable: the database schema is newer than this server");
        const created = await fetch(`${server.url}/blog/users/v1/create`, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: "After", email: "after@example.com" }),
        });
        expect(created.status).toBe(503);
        expect(await created.json()).toEqual(newer);
        for (const path of ["show/1", "list", "list?limit=1"]) {
          const read = await fetch(`${server.url}/blog/users/v1/${path}`, { headers });
          expect(read.status, path).toBe(503);
          expect(await read.json()).toEqual(newer);
        }
        // A table the migration left alone is served as before.
        expect((await fetch(`${server.url}/blog/posts/v1/list`, { headers })).status).toBe(200);
        await server.waitForOutput(
          "the database schema is newer than this server (a table or column it uses is gone or changed): regenerate the server from the manifest and restart it",
        );
        expect(server.process.exitCode).toBeNull();
      });
    },
  );
}

describe.skipIf(!postgresUrl || !findPostgres())("losing PostgreSQL", () => {
  let postgres: PostgresServer;

  afterAll(() => postgres?.stop());

  it("answers 503 while the database is gone, never exits, and serves again by itself", async () => {
    // A PostgreSQL server of this test's own, to terminate and restart.
    postgres = await startPostgres(findPostgres()!);
    const databaseUrl = await createDatabase(postgres.url, "loss");
    const { dir } = await sharedExample("blog", "postgresql");
    await migrate(dir, { DATABASE_URL: databaseUrl });
    const server = await start(dir, { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "4" });

    // Requests under way all along: creates and lists from four clients.
    const statuses = new Map<number, number>();
    const counted = new EventEmitter();
    /** Resolves once `count` answers of a status have come. */
    const answeredWith = (status: number, count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if ((statuses.get(status) ?? 0) < count) return;
          counted.off("status", check);
          resolve();
        };
        counted.on("status", check);
        check();
      });
    let running = true;
    let serial = 0;
    const load = async () => {
      while (running) {
        const label = `loss-${serial++}`;
        const { status } =
          serial % 2 === 0
            ? await createUser(server.url, label)
            : await fetch(`${server.url}/blog/users/v1/list?limit=5`, { headers }).then(
                async (response) => ({ status: (await response.arrayBuffer(), response.status) }),
                () => ({ status: 0 }),
              );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        counted.emit("status");
        // Paced: steady traffic all through the losses, not the two cores' worth of it.
        await sleep(20);
      }
    };
    const clients = Array.from({ length: 4 }, load);

    // Every connection of the server terminated, three times over.
    const admin = new pg.Client({ connectionString: `${postgres.url}/postgres` });
    await admin.connect();
    const name = new URL(databaseUrl).pathname.slice(1);
    const connections = async () =>
      Number(
        (
          await admin.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            [name],
          )
        ).rows[0].n,
      );
    for (let round = 0; round < 3; round++) {
      // Once the server has connections again (it opens them as requests need them).
      while ((await connections()) === 0) await sleep(50);
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
      expect(rowCount).toBeGreaterThan(0);
      // Served again after it: a few more successful lists.
      await answeredWith(200, (statuses.get(200) ?? 0) + 4);
    }
    await admin.end();

    // PostgreSQL stopped: 503s only; then started again: 200s, without touching the server.
    await postgres.halt();
    // 503s while it is down (an answer, not a hang).
    await answeredWith(503, (statuses.get(503) ?? 0) + 4);
    const gone = await fetch(`${server.url}/blog/users/v1/list`, { headers });
    expect(gone.status).toBe(503);
    expect(await gone.json()).toEqual(failure("Service unavailable"));
    // The health route (no key) says so too (issue 30).
    const health = await fetch(`${server.url}/blog/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual(failure("Service unavailable: the primary database cannot be reached"));
    await postgres.resume();
    // Served again by itself, without touching the server: 200s among the clients' answers.
    await answeredWith(200, (statuses.get(200) ?? 0) + 4);
    running = false;
    await Promise.all(clients);

    expect(server.process.exitCode).toBeNull();
    expect([...statuses.keys()].sort()).toEqual([200, 201, 503]);
    expect((await createUser(server.url, "after-restart")).status).toBe(201);
  });
});

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`kill -9 under write load on ${database}`, () => {
    it("loses no acknowledged write over three crashes", async () => {
      const { dir } = await sharedExample("blog", database);
      const db = await exampleDatabase("blog", database);
      const acknowledged = new Map<unknown, Record<string, unknown>>();
      for (let run = 0; run < 3; run++) {
        const server = await start(dir, { DATABASE_URL: db.url });
        let running = true;
        let serial = 0;
        // Killed once this run has some acknowledged writes (sooner or later, as busy as the machine is).
        const enough = acknowledged.size + 25;
        let killNow!: () => void;
        const killed = new Promise<void>((resolve) => (killNow = resolve));
        const writer = async () => {
          while (running) {
            const { status, record } = await createUser(server.url, `crash-${run}-${serial++}`);
            if (status === 201) acknowledged.set(record!.id, record!);
            if (acknowledged.size >= enough) killNow();
          }
        };
        const writers = Array.from({ length: 8 }, writer);
        await killed;
        server.process.kill("SIGKILL");
        await once(server.process, "exit");
        running = false;
        await Promise.all(writers);
      }
      expect(acknowledged.size).toBeGreaterThan(50);
      const server = await start(dir, { DATABASE_URL: db.url });
      const response = await fetch(`${server.url}/blog/users/v1/list?email[contains]=crash-`, { headers });
      const stored = new Map(
        ((await response.json()) as { data: Record<string, unknown>[] }).data.map((record) => [record.id, record]),
      );
      for (const [id, record] of acknowledged) expect(stored.get(id)).toEqual(record);
    });
  });
}
