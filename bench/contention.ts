// Other requests while the server does something long (issue 25), this commit against an earlier
// one (`--before <commit>`, default 2cac305, before SQLite gave the event loop back):
// - eight whole-table lists of a 1,000,000-row posts table at once (read by curl), on SQLite and
//   PostgreSQL: each list's time to last byte, and shows of one post, one after another meanwhile;
// - SQLite only: another process holding the write lock for 12 s, while 20 creates wait for it
//   (DATABASE_BUSY_TIMEOUT_MS at its default, 5000) and shows go on.
// Shows are timed to their last byte on fresh connections: p50, p99 and the longest.
//
//   npm run bench:contention            # ≈ 4 min; BENCH_LIST_ROWS (1000000), BENCH_STREAMS (8)
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { execa } from "execa";
import pg from "pg";
import { findPostgres, startPostgres } from "../test/helpers/postgres.ts";
import {
  KEY,
  REPO,
  migrate,
  percentile,
  removeWorkDir,
  startServer,
  tablegenGenerate,
  transpileServer,
  workDir,
  type Server,
} from "./lib.ts";

const ROWS = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 8);
const LOCK_MS = 12_000;
/** BENCH_CONTENTION_SHOWS=0: the lists alone, no shows meanwhile (each list's time to last byte undisturbed). */
const SHOWS = process.env.BENCH_CONTENTION_SHOWS !== "0";
const BEFORE = process.argv.includes("--before") ? process.argv[process.argv.indexOf("--before") + 1]! : "2cac305";
const log = (line: string) => console.error(`[contention ${new Date().toISOString().slice(11, 19)}] ${line}`);

const SEED = {
  sqlite: `INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com');
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS})
    INSERT INTO posts (title, body, published, rating, user_id, published_at)
    SELECT 'Post ' || i, 'Body of post ' || i, i % 2, i % 100, 1, '2024-01-01T00:00:00.000+00:00' FROM n;`,
  postgresql: `INSERT INTO users (name, email) VALUES ('Ada', 'ada@example.com');
    INSERT INTO posts (title, body, published, rating, user_id, published_at)
    SELECT 'Post ' || i, 'Body of post ' || i, i % 2 = 1, i % 100, 1, '2024-01-01T00:00:00Z'
    FROM generate_series(1, ${ROWS}) i; ANALYZE;`,
};

/** One GET on a fresh connection, timed to its last byte, however long it takes (lib's `timed` gives up at 30 s). */
function timedShow(url: string): Promise<{ ms: number; status: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request(url, { headers: { "x-api-signature": KEY }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ ms: performance.now() - start, status: res.statusCode ?? 0 }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Shows, one after another, until `until` settles: their times to last byte, ms. */
async function showsUntil(server: Server, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  const stop = () => (done = true);
  until.then(stop, stop);
  const times: number[] = [];
  while (!done) {
    const { ms, status } = await timedShow(`${server.base}/blog/posts/v1/show/7`);
    if (status !== 200) throw new Error(`show answered ${status}`);
    times.push(ms);
  }
  return times;
}

const summary = (times: number[]) =>
  times.length === 0
    ? "0 | – | – | –"
    : `${times.length} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${Math.max(...times).toFixed(0)}`;

/**
 * STREAMS whole-table lists at once, each read by curl: when each ended (ms; NaN for one cut short,
 * which a server that holds the event loop can do: a connection it did not read in time is closed),
 * and the shows meanwhile.
 */
async function wholeTables(server: Server) {
  const lists = Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const { stdout } = await execa(
        "curl",
        ["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total} %{size_download}"].concat([
          "-H",
          `x-api-signature: ${KEY}`,
          `${server.base}/blog/posts/v1/list`,
        ]),
        { reject: false },
      );
      const [status, seconds, bytes] = stdout.split(" ");
      return status === "200" && Number(bytes) >= ROWS * 100 ? Number(seconds) * 1000 : NaN;
    }),
  );
  void lists.catch(() => undefined); // awaited below, after the shows
  const shows = SHOWS ? await showsUntil(server, lists) : [];
  const ends = await lists;
  const whole = ends.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
  return { first: whole[0] ?? NaN, last: whole.at(-1) ?? NaN, complete: whole.length, shows };
}

/** Another process holds the write lock for LOCK_MS while 20 creates wait for it: the shows meanwhile, the creates' answers. */
async function heldLock(server: Server, file: string) {
  const holder = execa(process.execPath, [
    "-e",
    `const D = require(${JSON.stringify(join(REPO, "node_modules/better-sqlite3"))});
     const db = new D(${JSON.stringify(file)}); db.exec("BEGIN IMMEDIATE"); console.log("held");
     setTimeout(() => { db.exec("ROLLBACK"); db.close(); }, ${LOCK_MS});`,
  ]);
  await new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
  const started = performance.now();
  const creates = Promise.all(
    Array.from({ length: 20 }, async (_, index) => {
      const body = JSON.stringify({ name: "Locked", email: `locked-${Date.now()}-${index}@example.com` });
      const headers = { "x-api-signature": KEY, "content-type": "application/json" };
      // fetch: no timeout of its own (lib's send gives up after 5 s, sooner than a create may wait).
      const response = await fetch(`${server.base}/blog/users/v1/create`, { method: "POST", headers, body });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    }),
  );
  void creates.catch(() => undefined); // awaited below, after the shows
  const shows = await showsUntil(server, holder);
  const answers = await creates;
  return { shows, answers };
}

async function generated(dir: string, name: string, manifest: string, tablegen?: string) {
  const out = join(dir, name);
  if (!tablegen) await tablegenGenerate(manifest, out);
  else await execa(process.execPath, [tablegen, "generate", "--manifest", manifest, "--out", out], { cwd: REPO });
  await transpileServer(out);
  return out;
}

const dir = await workDir("bench-contention");
const pgBin = findPostgres();
const postgres = pgBin ? await startPostgres(pgBin) : undefined;
const old = join(dir, "tablegen-before");
const lists: string[] = [];
const locks: string[] = [];
try {
  execFileSync("git", ["-C", REPO, "worktree", "add", "--detach", old, BEFORE], { stdio: "pipe" });
  execFileSync("ln", ["-s", join(REPO, "node_modules"), join(old, "node_modules")]);
  const blog = readFileSync(join(REPO, "examples", "blog.yaml"), "utf8");
  const manifests = {
    sqlite: join(dir, "blog.yaml"),
    postgresql: join(dir, "blog-pg.yaml"),
  };
  await writeFile(manifests.sqlite, blog);
  await writeFile(manifests.postgresql, blog.replace("database: sqlite", "database: postgresql"));

  for (const database of ["sqlite", "postgresql"] as const) {
    if (database === "postgresql" && !postgres) {
      log("PostgreSQL: no server programs found, left out");
      continue;
    }
    const servers = {
      [BEFORE]: await generated(dir, `${database}-before`, manifests[database], join(old, "bin", "tablegen.js")),
      "this commit": await generated(dir, database, manifests[database]),
    };
    const file = join(dir, `${database}.db`);
    let url = `file:${file}`;
    if (database === "postgresql") {
      const admin = new pg.Client({ connectionString: `${postgres!.url}/postgres` });
      await admin.connect();
      await admin.query("CREATE DATABASE contention");
      await admin.end();
      url = `${postgres!.url}/contention`;
    }
    await migrate(servers["this commit"], url);
    log(`${database}: seeding ${ROWS.toLocaleString("en")} posts`);
    if (database === "sqlite") {
      const db = new Database(file);
      db.exec(SEED.sqlite);
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.close();
    } else {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(SEED.postgresql);
      await client.end();
    }
    for (const [label, serverDir] of Object.entries(servers)) {
      const server = await startServer({ kind: "generated", serverDir, databaseUrl: url });
      try {
        await sleep(500);
        const whole = await wholeTables(server);
        lists.push(
          `| ${database} | ${label} | ${whole.complete} of ${STREAMS} | ${(whole.first / 1000).toFixed(1)} | ${(whole.last / 1000).toFixed(1)} | ${summary(whole.shows)} |`,
        );
        log(`${database}, ${label}: ${lists.at(-1)}`);
        if (database === "sqlite") {
          const lock = await heldLock(server, file);
          const created = lock.answers.filter(({ status }) => status === 503);
          locks.push(
            `| ${label} | ${summary(lock.shows)} | ${created.length} of ${lock.answers.length} answered 503, after ${(Math.min(...created.map(({ ms }) => ms)) / 1000).toFixed(1)}–${(Math.max(...created.map(({ ms }) => ms)) / 1000).toFixed(1)} s |`,
          );
          log(`sqlite lock, ${label}: ${locks.at(-1)}`);
        }
      } finally {
        await server.stop();
      }
    }
  }
  console.log(
    [
      `### ${STREAMS} whole-table lists of ${ROWS.toLocaleString("en")} posts at once, and shows meanwhile`,
      "",
      "| database | server | lists whole | first list done, s | last list done, s | shows | show p50 ms | show p99 ms | longest show ms |",
      "|---|---|--:|--:|--:|--:|--:|--:|--:|",
      ...lists,
      "",
      `### SQLite: another process holds the write lock for ${LOCK_MS / 1000} s; 20 creates wait (DATABASE_BUSY_TIMEOUT_MS 5000)`,
      "",
      "| server | shows | show p50 ms | show p99 ms | longest show ms | creates |",
      "|---|--:|--:|--:|--:|---|",
      ...locks,
    ].join("\n"),
  );
} finally {
  execFileSync("git", ["-C", REPO, "worktree", "remove", "--force", old], { stdio: "pipe" });
  postgres?.stop();
  await removeWorkDir(dir);
}
