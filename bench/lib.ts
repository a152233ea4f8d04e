// Helpers shared by bench/run.ts and the parts it runs: the work directory,
// generating, migrating and transpiling the example, seeding, server processes, /proc readings and
// load runs.
import { fork, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, utimesSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { execa } from "execa";
import type { LoadResult, LoadSpec } from "./load.ts";
import { treeCpuMs, treeMemory } from "./proc.ts";

export const REPO = fileURLToPath(new URL("..", import.meta.url));
export const BENCH = join(REPO, "bench");
export const TABLEGEN = join(REPO, "bin", "tablegen.js");
export const KEY = "bench-signature-key-0123456789abcdef";

export const envNumber = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name} must be a positive number, not "${value}"`);
  return number;
};

export const count = (name: string, fallback: number) => Math.max(1, Math.round(envNumber(name, fallback)));

/** Knobs, with the defaults that keep `npm run bench` under about four minutes. */
export const settings = {
  duration: envNumber("BENCH_DURATION", 5),
  rounds: count("BENCH_ROUNDS", 3),
  warmup: envNumber("BENCH_WARMUP", 1.5),
  connections: count("BENCH_CONNECTIONS", 10),
  starts: count("BENCH_STARTS", 5),
  generations: count("BENCH_GENERATIONS", 3),
  keep: process.env.BENCH_KEEP === "1",
  /** BENCH_CLUSTER=0 leaves out the cluster mode (its start-ups and its load runs). */
  cluster: process.env.BENCH_CLUSTER !== "0",
  /** BENCH_PEERS=0 leaves out the peers (PocketBase, json-server) on show, list and create. */
  peers: process.env.BENCH_PEERS !== "0",
  /** BENCH_GROWTH=0 leaves out how cost grows with the table (bench/growth.ts). */
  growth: process.env.BENCH_GROWTH !== "0",
  /** BENCH_PG=0 leaves out PostgreSQL (bench/pg.ts: the generated server against the lean pg ceiling). */
  pg: process.env.BENCH_PG !== "0",
  /** BENCH_KEYS=0 leaves out what API_KEY_<NAME> keys cost a request (bench/keys.ts). */
  keys: process.env.BENCH_KEYS !== "0",
  /**
   * BENCH_LOG_LEVEL: every server's LOG_LEVEL (default info, the generated server's default: a line
   * per request). A server's standard output goes to a file of the scratch directory, as a deployed
   * server's goes to a file or a log collector, not to this process.
   */
  logLevel: process.env.BENCH_LOG_LEVEL || "info",
};

// ---- processes that must not outlive the benchmark -----------------------------------------

// Servers run in a process group of their own (detached), so that a cluster's workers and the
// processes under `npm start` (sh, node) can be ended with them; load processes are plain children.
const children = new Map<ChildProcess, boolean>();
function track(child: ChildProcess, group = false): ChildProcess {
  children.set(child, group);
  child.once("exit", () => {
    // A group may outlive its leader: keep it until the group is gone (stop() waits for that).
    if (!group) children.delete(child);
  });
  return child;
}
function killAll(): void {
  for (const [child, group] of children) {
    try {
      if (group) process.kill(-child.pid!, "SIGKILL");
      else child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}
process.once("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

// ---- work directory, generation, database -------------------------------------------------

/** A fresh directory under .tmp/ (inside the repository, so generated code finds node_modules). */
export async function workDir(prefix = "bench"): Promise<string> {
  await mkdir(join(REPO, ".tmp"), { recursive: true });
  return mkdtemp(join(REPO, ".tmp", `${prefix}-`));
}

export async function removeWorkDir(dir: string): Promise<void> {
  if (!settings.keep) await rm(dir, { recursive: true, force: true });
}

/** `tablegen generate` as a user runs it; returns the wall time in milliseconds. */
export async function tablegenGenerate(manifest: string, out: string): Promise<number> {
  const start = performance.now();
  await execa(process.execPath, [TABLEGEN, "generate", "--manifest", manifest, "--out", out], {
    cwd: REPO,
    timeout: 120_000,
  });
  return performance.now() - start;
}

/** The generated server's own `npm run migrate` (Prisma's migrations, then its transpile and WAL mode). */
export async function migrate(serverDir: string, databaseUrl: string): Promise<void> {
  await execa("npm", ["run", "--silent", "migrate"], {
    cwd: serverDir,
    env: { DATABASE_URL: databaseUrl },
    timeout: 120_000,
  });
}

/**
 * The generated server's `npm run build` (Prisma Client, then tsc into dist/); wall time in ms.
 * tsc's output is then moved to dist-prod/, because `npm start`'s transpile (esbuild) writes the
 * same dist/: run transpileServer afterwards. `node dist-prod/server.js` is what
 * `npm run start:prod` runs after a build (the server looks for nothing relative to its own files
 * but ../.env, the server directory either way).
 */
export async function buildServer(serverDir: string): Promise<number> {
  await rm(join(serverDir, "dist"), { recursive: true, force: true });
  await rm(join(serverDir, PROD_DIR), { recursive: true, force: true });
  const start = performance.now();
  await execa("npm", ["run", "--silent", "build"], {
    cwd: serverDir,
    env: { DATABASE_URL: "file:./seed.db" },
    timeout: 300_000,
  });
  const ms = performance.now() - start;
  await rename(join(serverDir, "dist"), join(serverDir, PROD_DIR));
  return ms;
}

/** Where buildServer leaves tsc's output. */
export const PROD_DIR = "dist-prod";

/**
 * The generated server's `npm run -s transpile` (`node run.js`: esbuild strips the types of every
 * .ts file under src/ that changed since its last run into dist/, with source maps), what its
 * `npm start` and `npm run cluster` do first; wall time in ms, npm included.
 */
export async function transpileServer(serverDir: string): Promise<number> {
  const start = performance.now();
  await execa("npm", ["run", "--silent", "transpile"], { cwd: serverDir, timeout: 120_000 });
  const ms = performance.now() - start;
  if (!existsSync(join(serverDir, "dist", "server.js"))) {
    throw new Error(`npm run transpile left no dist/server.js in ${serverDir}`);
  }
  return ms;
}

/** The hand-written servers: bench/<kind>.ts, transpiled to <kind>.mjs by transpileCeiling. */
export type CeilingKind = "ceiling" | "lean" | "lean-pg";
const isCeiling = (kind: ServerKind): kind is CeilingKind =>
  kind === "ceiling" || kind === "lean" || kind === "lean-pg";

/** Where transpileCeiling writes a ceiling: the work directory, next to the server's. */
export const ceilingFile = (serverDir: string, kind: CeilingKind = "ceiling") =>
  join(dirname(serverDir), `${kind}.mjs`);

/**
 * bench/ceiling.ts and bench/lean.ts (or the kinds given: bench/lean-pg.ts) stripped of their types
 * by esbuild (node_modules/.bin/esbuild, with the options of the generated server's transpile), so
 * that every server runs as plain JavaScript under `node --enable-source-maps`; wall time in ms (all
 * the files).
 */
export async function transpileCeiling(serverDir: string, kinds: CeilingKind[] = ["ceiling", "lean"]): Promise<number> {
  const start = performance.now();
  for (const kind of kinds) {
    await execa(
      join(REPO, "node_modules", ".bin", "esbuild"),
      [
        join(BENCH, `${kind}.ts`),
        `--outfile=${ceilingFile(serverDir, kind)}`,
        // bench/lean-contract.ts, which the lean ceilings share, goes into each; packages stay imports.
        "--bundle",
        "--packages=external",
        "--platform=node",
        "--target=node20",
        "--format=esm",
        "--sourcemap",
        "--log-level=warning",
      ],
      { cwd: REPO, timeout: 60_000 },
    );
  }
  return performance.now() - start;
}

export const USERS = 100;
export const CATEGORIES = 10;
export const POSTS = 100;
export const categoryId = (index: number) => `c0ffee00-0000-4000-8000-${String(index).padStart(12, "0")}`;

const BIO = "Writes about databases, HTTP servers and the cost of abstractions. ".repeat(2).trim();

/**
 * SQLite: `rows` users, numbered from 1, in one statement (a recursive CTE, no round trip per row: a
 * million rows in about 3 s), with the values the bench's users have always had, stored as the server
 * stores them (booleans 0/1, date-times "YYYY-MM-DDTHH:MM:SS.000+00:00"): "User <i>",
 * "user<i>@example.com", phone "+1 555 010 <i, 4 digits or more>", the same bio, every fifth inactive,
 * created on day (i mod 28) + 1 of January 2024. Used by seed() (100 users), bench/growth.ts and
 * bench/lists.ts.
 */
export const usersSeedSql = (rows: number) => `
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
  INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at")
  SELECT 'User ' || i, 'user' || i || '@example.com', '+1 555 010 ' || printf('%04d', i), '${BIO}',
         CASE WHEN i % 5 = 0 THEN 0 ELSE 1 END, '2024-01-' || printf('%02d', i % 28 + 1) || 'T10:00:00.000+00:00'
  FROM n;`;

/** The same users on PostgreSQL (generate_series; booleans and date-times as PostgreSQL stores them). */
export const postgresUsersSeedSql = (rows: number) => `
  INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at")
  SELECT 'User ' || i, 'user' || i || '@example.com', '+1 555 010 ' || lpad(i::text, 4, '0'), '${BIO}',
         i % 5 <> 0, ('2024-01-' || lpad((i % 28 + 1)::text, 2, '0') || 'T10:00:00Z')::timestamptz
  FROM generate_series(1, ${rows}) i;`;

/** The blog example generated into `<work>/server` and transpiled, beside a migrated and seeded SQLite database. */
export async function seededBlog(work: string): Promise<{ serverDir: string; file: string }> {
  const serverDir = join(work, "server");
  await tablegenGenerate(join(REPO, "examples", "blog.yaml"), serverDir);
  await transpileServer(serverDir);
  const file = join(work, "blog.db");
  await migrate(serverDir, `file:${file}`);
  seed(file);
  return { serverDir, file };
}

/**
 * Seeds the migrated blog database: 100 users (usersSeedSql), 10 categories, 100 posts (10 per
 * category), with values stored as the server stores them. Leaves no WAL file behind, so the file
 * can be copied.
 */
export function seed(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  const stamp = (day: number) => `2024-01-${String(day).padStart(2, "0")}T10:00:00.000+00:00`;
  db.transaction(() => {
    db.exec(usersSeedSql(USERS));
    const category = db.prepare(`INSERT INTO "categories" ("id", "name") VALUES (?, ?)`);
    for (let i = 1; i <= CATEGORIES; i++) category.run(categoryId(i), `Category ${i}`);
    const post = db.prepare(
      `INSERT INTO "posts" ("title", "body", "published", "rating", "user_id", "category_id", "published_at") VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 1; i <= POSTS; i++) {
      post.run(
        `Post ${i}`,
        `Body of post ${i}.`,
        i % 2,
        i / 10,
        ((i - 1) % USERS) + 1,
        categoryId(((i - 1) % CATEGORIES) + 1),
        stamp((i % 28) + 1),
      );
    }
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  if (existsSync(`${file}-wal`)) throw new Error(`${file}-wal is left after closing the seeded database`);
}

export function copyDatabase(from: string, to: string): void {
  copyFileSync(from, to);
}

// ---- servers -------------------------------------------------------------------------------

/**
 * generated: `node run.js server`, as `npm start` runs it (run.js finds dist/ up to date, then runs
 * dist/server.js in the same process); cluster: `node run.js cluster`;
 * ceiling: bench/ceiling.ts (the generated server's costs, written by hand); lean: bench/lean.ts
 * (the fastest honest server for the same contract); lean-pg: bench/lean-pg.ts (the same on
 * PostgreSQL; with WORKERS in its environment, that many processes under node:cluster).
 */
export type ServerKind = "generated" | "ceiling" | "lean" | "lean-pg" | "cluster";

export interface ServerOptions {
  kind: ServerKind;
  /** The generated server's directory (cwd of every server). */
  serverDir: string;
  /** DATABASE_URL, relative to serverDir or absolute. */
  databaseUrl: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /**
   * The generated server compiled by tsc, as `npm run start:prod` runs it after `npm run build`
   * (`node dist/server.js`, no source maps; here dist-prod/server.js, see buildServer).
   */
  compiled?: boolean;
  /** More environment variables for the server (e.g. WORKERS). */
  env?: Record<string, string>;
  /**
   * The request polled until it answers 200 (the start-up time): LIST_PATH unless given; a large
   * table's whole list would make the start-up its answer's time (bench/growth.ts asks for a page).
   */
  readyPath?: string;
}

export interface Server {
  kind: ServerKind;
  /** The server's process (a cluster's primary). */
  pid: number;
  base: string;
  /** Milliseconds from spawn to the first 200 answer of a list request. */
  startupMs: number;
  /** A cluster: milliseconds from spawn until every worker has printed "Listening on". */
  allListeningMs?: number;
  /** A cluster's worker processes once every worker listens (0 for a single process). */
  workers: number;
  /**
   * VmRSS (MB) right after that first answer; for a cluster, summed over the primary and its
   * workers once every worker listens.
   */
  idleRssMb: number;
  /** process.hrtime of the spawn and of the first answer, µs (the clock of --cpu-prof timestamps). */
  spawnedAtUs: number;
  readyAtUs: number;
  output: () => string;
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

export const LIST_PATH = "/blog/users/v1/list";

/** The node command line of a server (after the node binary). */
export function serverArgs(options: Pick<ServerOptions, "kind" | "serverDir" | "nodeArgs" | "compiled">): string[] {
  const nodeArgs = options.nodeArgs ?? [];
  if (isCeiling(options.kind))
    return [...nodeArgs, "--enable-source-maps", ceilingFile(options.serverDir, options.kind)];
  if (options.kind === "cluster") return [...nodeArgs, "run.js", "cluster"];
  if (options.compiled) return [...nodeArgs, `${PROD_DIR}/server.js`];
  return [...nodeArgs, "run.js", "server"];
}

interface Launched {
  child: ChildProcess;
  base: string;
  /** performance.now() and process.hrtime (µs) right before the spawn. */
  start: number;
  spawnedAtUs: number;
  output: () => string;
  /** Rejects when the process exits. */
  exited: Promise<never>;
  /** Resolves with the time of the first 200 answer of a list request (performance.now()). */
  firstAnswer: () => Promise<number>;
  /** SIGTERM to the process (or its whole group), SIGKILL after 10 s; resolves when it has exited. */
  stop: (group: boolean) => Promise<void>;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Spawns a server command in a process group of its own, on a free loopback port. */
async function launch(
  label: string,
  command: string,
  args: string[],
  options: Pick<ServerOptions, "serverDir" | "databaseUrl" | "env" | "readyPath">,
): Promise<Launched> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  // Standard output (the log lines and "Listening on") into a file; standard error piped here.
  mkdirSync(join(options.serverDir, "logs"), { recursive: true });
  const logFile = join(options.serverDir, "logs", `${label.replaceAll(/\W+/g, "-")}-${port}.log`);
  const stdout = openSync(logFile, "a");
  const start = performance.now();
  const spawnedAtUs = Number(process.hrtime.bigint() / 1000n);
  const child = track(
    spawn(command, args, {
      cwd: options.serverDir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...(process.env.TMPDIR && { TMPDIR: process.env.TMPDIR }),
        HOST: "127.0.0.1",
        PORT: String(port),
        API_SIGNATURE_KEY: KEY,
        DATABASE_URL: options.databaseUrl,
        LOG_LEVEL: settings.logLevel,
        ...options.env,
      },
      stdio: ["ignore", stdout, "pipe"],
      detached: true,
    }),
    true,
  );
  closeSync(stdout);
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const everything = () => readFileSync(logFile, "utf8") + output;
  const exited = once(child, "exit").then(([code, signal]) => {
    throw new Error(`the ${label} exited (${signal ?? code}) before answering:\n${everything()}`);
  });
  exited.catch(() => {});
  const kill = (signal: NodeJS.Signals, group: boolean) => {
    try {
      if (group) process.kill(-child.pid!, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };

  return {
    child,
    base,
    start,
    spawnedAtUs,
    output: everything,
    exited,
    firstAnswer: async () => {
      const deadline = start + 30_000;
      while (performance.now() < deadline) {
        const answer = await Promise.race([
          get(base + (options.readyPath ?? LIST_PATH)).catch(() => undefined),
          exited,
        ]);
        if (answer?.status === 200) return performance.now();
        await sleep(5);
      }
      kill("SIGKILL", true);
      throw new Error(`the ${label} did not answer within 30 s:\n${everything()}`);
    },
    stop: async (group) => {
      const timer = setTimeout(() => kill("SIGKILL", true), 10_000);
      if (child.exitCode === null && child.signalCode === null) {
        const exit = once(child, "exit");
        kill("SIGTERM", group);
        await exit;
      }
      // Until nothing of the group is left (a worker, or the node under npm and sh, may take a
      // moment longer than the process that was spawned).
      while (groupAlive(child.pid!)) await sleep(5);
      clearTimeout(timer);
      children.delete(child);
    },
  };
}

/**
 * Starts a server as its own process (serverArgs: plain JavaScript under node, no npm in between)
 * on a free loopback port and polls a list request until it answers 200: that time is the start-up
 * time. A cluster is then given until every worker has printed "Listening on" (one worker per
 * core unless WORKERS is in options.env) before its memory is read.
 */
export async function startServer(options: ServerOptions): Promise<Server> {
  const script = isCeiling(options.kind)
    ? ceilingFile(options.serverDir, options.kind)
    : join(
        options.serverDir,
        options.compiled ? PROD_DIR : "dist",
        options.kind === "cluster" ? "cluster.js" : "server.js",
      );
  if (!existsSync(script)) {
    throw new Error(
      `${script} does not exist: run ${isCeiling(options.kind) ? "transpileCeiling" : options.compiled ? "buildServer" : "transpileServer"} first`,
    );
  }
  const label = `${options.kind}${options.compiled ? " (compiled)" : ""} server`;
  const launched = await launch(label, process.execPath, serverArgs(options), options);
  const { child, start } = launched;
  const answeredAt = await launched.firstAnswer();
  const startupMs = answeredAt - launched.start;
  const readyAtUs = Number(process.hrtime.bigint() / 1000n);

  let allListeningMs: number | undefined;
  // A cluster: the generated server's dist/cluster.js, or a ceiling given WORKERS (bench/lean-pg.ts).
  if (options.kind === "cluster" || options.env?.WORKERS !== undefined) {
    const expected = Number(options.env?.WORKERS) || availableParallelism();
    const listening = () => launched.output().split("Listening on").length - 1;
    while (listening() < expected) {
      if (performance.now() - start > 30_000) {
        await launched.stop(true);
        throw new Error(`only ${listening()} of ${expected} cluster workers listen after 30 s:\n${launched.output()}`);
      }
      await Promise.race([sleep(2), launched.exited]);
    }
    allListeningMs = performance.now() - start;
  }
  const idle = treeMemory(child.pid!);

  return {
    kind: options.kind,
    pid: child.pid!,
    base: launched.base,
    startupMs,
    ...(allListeningMs !== undefined && { allListeningMs }),
    workers: idle.processes - 1,
    idleRssMb: idle.rssMb,
    spawnedAtUs: launched.spawnedAtUs,
    readyAtUs,
    output: launched.output,
    // SIGTERM to the server process only: a cluster's primary passes it on to its workers, as in
    // production. (A stop that hangs ends with SIGKILL to the whole group.)
    stop: () => launched.stop(false),
  };
}

/**
 * `npm start` as a user runs it (npm, then `node run.js server`: src/ checked against dist/, then
 * dist/server.js), from spawn to the first 200 answer of a list request, ms; then stops the whole
 * process group. With `edited`, that file of the server is touched first, as an edit would: the start
 * then transpiles it.
 */
export async function timeNpmStart(serverDir: string, databaseUrl: string, edited?: string): Promise<number> {
  return (await timeStart(["npm", "start"], serverDir, databaseUrl, edited)).ms;
}

/**
 * Any command that starts the generated server (`npm start`, `node run.js server`…), timed as
 * timeNpmStart times `npm start`: ms from spawn to the first 200 list answer, and the CPU time its
 * processes had used by then (those it waited for included), ms; then the whole group is stopped.
 */
export async function timeStart(
  [command, ...args]: string[],
  serverDir: string,
  databaseUrl: string,
  edited?: string,
): Promise<{ ms: number; cpuMs: number }> {
  if (edited !== undefined) {
    const now = new Date();
    utimesSync(join(serverDir, edited), now, now);
  }
  const launched = await launch(command!, command!, args, { serverDir, databaseUrl });
  try {
    const ms = (await launched.firstAnswer()) - launched.start;
    return { ms, cpuMs: treeCpuMs(launched.child.pid!) };
  } finally {
    // A SIGTERM to npm does not reach the node under its sh: signal the whole group.
    await launched.stop(true);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { cpuMs, machineCpuMs, memory, processTree, treeMemory } from "./proc.ts";

// ---- HTTP ----------------------------------------------------------------------------------

export interface Answer {
  status: number;
  body: string;
}

/** One request on a fresh connection (no keep-alive, so nothing is left open). */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false, timeout: 5000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

export const get = (url: string) => send(url, { headers: { "x-api-signature": KEY } });

/** One GET on a fresh connection, timed to its last byte (ms): its status, size and Link header. */
export function timed(url: string): Promise<{ ms: number; status: number; bytes: number; link?: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = httpRequest(url, { headers: { "x-api-signature": KEY }, agent: false, timeout: 30_000 }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => {
        const link = [res.headers.link ?? []].flat().join(", ");
        resolve({ ms: performance.now() - start, status: res.statusCode ?? 0, bytes, ...(link && { link }) });
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
    req.on("error", reject);
    req.end();
  });
}

/** The value below which p % of the values lie (nearest rank, from below). */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/**
 * Sequential requests (one at a time, each on a fresh connection), timed to the last byte, after
 * `warmup` requests: `requests` of them, or fewer when `seconds` run out first (never fewer than
 * `least`). Throws on an answer other than 200.
 */
export async function sequential(
  base: string,
  path: string,
  options: { requests: number; warmup?: number; seconds?: number; least?: number },
): Promise<{ times: number[]; p50: number; p99: number; bytes: number }> {
  const check = <T extends { status: number }>(answer: T): T => {
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status}`);
    return answer;
  };
  for (let i = 0; i < (options.warmup ?? 5); i++) check(await timed(base + path));
  const times: number[] = [];
  let bytes = 0;
  const deadline = performance.now() + (options.seconds ?? Infinity) * 1000;
  while (times.length < options.requests && (times.length < (options.least ?? 1) || performance.now() < deadline)) {
    const answer = check(await timed(base + path));
    times.push(answer.ms);
    bytes = answer.bytes;
  }
  return { times, p50: percentile(times, 50), p99: percentile(times, 99), bytes };
}

/**
 * One request for a list that may be large: time to last byte, bytes, and the server's RSS growth
 * over its RSS right before (VmRSS of its process tree, sampled every 20 ms while it answers).
 */
export async function wholeList(
  server: Pick<Server, "base" | "pid">,
  path: string,
): Promise<{ ms: number; bytes: number; growthMb: number }> {
  const idle = treeMemory(server.pid).rssMb;
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, treeMemory(server.pid).rssMb)), 20);
  try {
    const { ms, status, bytes } = await timed(server.base + path);
    if (status !== 200) throw new Error(`${path}: ${status}`);
    return { ms, bytes, growthMb: peak - idle };
  } finally {
    clearInterval(sampler);
  }
}

// ---- endpoints and load --------------------------------------------------------------------

export interface Endpoint {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: Record<string, unknown>;
}

export const ENDPOINTS: Endpoint[] = [
  { name: "show", method: "GET", path: "/blog/users/v1/show/42" },
  { name: "list", method: "GET", path: LIST_PATH },
  { name: "query", method: "GET", path: `/blog/v1/category_posts?category_id=${categoryId(3)}` },
  // Last: creates grow the users table, and list answers every row.
  {
    name: "create",
    method: "POST",
    path: "/blog/users/v1/create",
    body: { name: "Bench User", email: "bench-{n}@example.com", phone: "+1 555 0100", bio: "Created under load." },
  },
];

/** Runs one load in a child process (bench/load.ts) against a server, with its key (bench/keys.ts) or KEY. */
export async function load(
  server: Pick<Server, "base" | "pid"> & { key?: string },
  endpoint: Endpoint,
  duration: number,
  tag: string,
): Promise<LoadResult> {
  const spec: LoadSpec = {
    url: server.base,
    method: endpoint.method,
    path: endpoint.path,
    headers: {
      "x-api-signature": server.key ?? KEY,
      ...(endpoint.body && { "content-type": "application/json" }),
    },
    ...(endpoint.body && { body: endpoint.body }),
    tag,
    duration,
    connections: settings.connections,
    serverPid: server.pid,
  };
  const child = track(
    fork(join(BENCH, "load.ts"), [], {
      cwd: REPO,
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  const timer = setTimeout(() => child.kill("SIGKILL"), (duration + 60) * 1000);
  try {
    const reply = new Promise<LoadResult>((resolve, reject) => {
      child.once("message", (message: { ok: boolean; result?: LoadResult; error?: string }) =>
        message.ok ? resolve(message.result!) : reject(new Error(`load failed: ${message.error}`)),
      );
      child.once("exit", (code) => reject(new Error(`the load process exited with ${code} without a result`)));
    });
    child.send(spec);
    return await reply;
  } finally {
    clearTimeout(timer);
  }
}

// ---- statistics ----------------------------------------------------------------------------

/**
 * The servers in a round's order: as given in odd rounds, reversed in even ones, so that no server is
 * always warmed and measured first. Where a server stands in the round moves its figures: on PostgreSQL
 * the same server cost 1.1–1.2× the CPU a request when measured first; in a later SQLite run the one
 * measured first was the faster (bench/RESULTS.md, Request logs).
 */
export const inTurn = <T>(servers: readonly T[], round: number): T[] =>
  round % 2 === 1 ? [...servers] : [...servers].reverse();

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The element whose key is the median one (the lower middle for an even count). */
export function medianBy<T>(items: T[], key: (item: T) => number): T {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
