// Helpers shared by bench/run.ts and bench/profile.ts: the work directory, generating and
// migrating the example, seeding, server processes, /proc readings and load runs.
import { fork, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { execa } from "execa";
import type { LoadResult, LoadSpec } from "./load.ts";
import { memory } from "./proc.ts";

export const REPO = fileURLToPath(new URL("..", import.meta.url));
export const BENCH = join(REPO, "bench");
export const TABLEGEN = join(REPO, "bin", "tablegen.js");
export const KEY = "bench-signature-key-0123456789abcdef";

const envNumber = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name} must be a positive number, not "${value}"`);
  return number;
};

const count = (name: string, fallback: number) => Math.max(1, Math.round(envNumber(name, fallback)));

/** Knobs, with the defaults that keep `npm run bench` under about four minutes. */
export const settings = {
  duration: envNumber("BENCH_DURATION", 5),
  rounds: count("BENCH_ROUNDS", 3),
  warmup: envNumber("BENCH_WARMUP", 1.5),
  connections: count("BENCH_CONNECTIONS", 10),
  starts: count("BENCH_STARTS", 5),
  generations: count("BENCH_GENERATIONS", 3),
  keep: process.env.BENCH_KEEP === "1",
};

// ---- processes that must not outlive the benchmark -----------------------------------------

const children = new Set<ChildProcess>();
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const child of children) child.kill("SIGKILL");
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

/** The generated server's own `npm run migrate` (Prisma's migrations, then WAL mode). */
export async function migrate(serverDir: string, databaseUrl: string): Promise<void> {
  await execa("npm", ["run", "--silent", "migrate"], {
    cwd: serverDir,
    env: { DATABASE_URL: databaseUrl },
    timeout: 120_000,
  });
}

/** The generated server's `npm run build` (Prisma Client, then tsc into dist/); wall time in ms. */
export async function buildServer(serverDir: string): Promise<number> {
  const start = performance.now();
  await execa("npm", ["run", "--silent", "build"], {
    cwd: serverDir,
    env: { DATABASE_URL: "file:./seed.db" },
    timeout: 300_000,
  });
  return performance.now() - start;
}

export const USERS = 100;
export const CATEGORIES = 10;
export const POSTS = 100;
export const categoryId = (index: number) => `c0ffee00-0000-4000-8000-${String(index).padStart(12, "0")}`;

/**
 * Seeds the migrated blog database with values stored as the server stores them (booleans 0/1,
 * date-times as "YYYY-MM-DDTHH:MM:SS.000+00:00"): 100 users, 10 categories, 100 posts (10 per
 * category). Leaves no WAL file behind, so the file can be copied.
 */
export function seed(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  const bio = "Writes about databases, HTTP servers and the cost of abstractions. ".repeat(2).trim();
  const stamp = (day: number) => `2024-01-${String(day).padStart(2, "0")}T10:00:00.000+00:00`;
  db.transaction(() => {
    const user = db.prepare(
      `INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at") VALUES (?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 1; i <= USERS; i++) {
      user.run(
        `User ${i}`,
        `user${i}@example.com`,
        `+1 555 010 ${String(i).padStart(4, "0")}`,
        bio,
        i % 5 === 0 ? 0 : 1,
        stamp((i % 28) + 1),
      );
    }
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

export type ServerKind = "generated" | "ceiling";

export interface ServerOptions {
  kind: ServerKind;
  /** The generated server's directory (cwd of both servers). */
  serverDir: string;
  /** DATABASE_URL, relative to serverDir or absolute. */
  databaseUrl: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** The generated server as `npm run start:prod` runs it (`node dist/server.js`, after `npm run build`). */
  compiled?: boolean;
  /** More environment variables for the server (e.g. CEILING_ASYNC=1). */
  env?: Record<string, string>;
}

export interface Server {
  kind: ServerKind;
  pid: number;
  base: string;
  /** Milliseconds from spawn to the first 200 answer of a list request. */
  startupMs: number;
  /** VmRSS (MB) right after that first answer. */
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

/**
 * Starts a server as its own process (`node --import tsx <script>`) on a free loopback port and
 * polls a list request until it answers 200: that time is the start-up time.
 */
export async function startServer(options: ServerOptions): Promise<Server> {
  const port = await freePort();
  const script = options.kind === "generated" ? "src/server.ts" : join(BENCH, "ceiling.ts");
  const args = options.compiled
    ? [...(options.nodeArgs ?? []), "dist/server.js"]
    : [...(options.nodeArgs ?? []), "--import", "tsx", script];
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  const start = performance.now();
  const spawnedAtUs = Number(process.hrtime.bigint() / 1000n);
  const child = track(
    spawn(process.execPath, args, {
      cwd: options.serverDir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...(process.env.TMPDIR && { TMPDIR: process.env.TMPDIR }),
        HOST: "127.0.0.1",
        PORT: String(port),
        API_SIGNATURE_KEY: KEY,
        DATABASE_URL: options.databaseUrl,
        LOG_LEVEL: "warn",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the ${options.kind} server exited with ${code} before answering:\n${output}`);
  });
  exited.catch(() => {});

  const deadline = start + 30_000;
  let startupMs: number | undefined;
  let readyAtUs = 0;
  while (performance.now() < deadline) {
    const answer = await Promise.race([get(base + LIST_PATH).catch(() => undefined), exited]);
    if (answer?.status === 200) {
      startupMs = performance.now() - start;
      readyAtUs = Number(process.hrtime.bigint() / 1000n);
      break;
    }
    await sleep(5);
  }
  if (startupMs === undefined) {
    child.kill("SIGKILL");
    throw new Error(`the ${options.kind} server did not answer within 30 s:\n${output}`);
  }
  const idleRssMb = memory(child.pid!).rssMb;

  return {
    kind: options.kind,
    pid: child.pid!,
    base,
    startupMs,
    idleRssMb,
    spawnedAtUs,
    readyAtUs,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exit = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { cpuMs, machineCpuMs, memory } from "./proc.ts";

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

/** Runs one load in a child process (bench/load.ts) against a server. */
export async function load(server: Server, endpoint: Endpoint, duration: number, tag: string): Promise<LoadResult> {
  const spec: LoadSpec = {
    url: server.base,
    method: endpoint.method,
    path: endpoint.path,
    headers: {
      "x-api-signature": KEY,
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
