// The PostgreSQL part of `npm run bench` (issue 18): the generated server of examples/blog.yaml on
// PostgreSQL against the lean pg ceiling (bench/lean-pg.ts), on one throwaway PostgreSQL server
// started here (test/helpers/postgres.ts: initdb into the OS temp dir, loopback, fsync off), one
// process of each and two processes of each.
//
//   1. generates examples/blog.yaml with `database: postgresql` into .tmp/bench-pg-*/server,
//      transpiles it (`npm run -s transpile`) and bench/lean-pg.ts (esbuild, the same options);
//   2. migrates a seed database with the server's own `npm run migrate` and seeds it with the rows
//      bench/lib.ts seeds into SQLite (100 users, 10 categories, 100 posts);
//   3. BENCH_ROUNDS rounds; each starts fresh servers, each on its own fresh copy of the seed
//      database (CREATE DATABASE … TEMPLATE): the generated server (`dist/server.js`), the lean
//      ceiling, and unless BENCH_CLUSTER=0 the generated `dist/cluster.js` with WORKERS=2 and the
//      lean ceiling under node:cluster with WORKERS=2; every process has a pool of 10 connections.
//      Per endpoint (show, list, query, create; BENCH_ENDPOINTS) a warm-up of each, then each is
//      loaded in that order, as bench/run.ts loads the SQLite servers. In the first round every
//      server must answer the checked requests as the generated server does (parity).
//   4. reports req/s, latency, the server's CPU per request and PostgreSQL's CPU during the round,
//      and generated ÷ lean (one process; two processes), the target being ≥ 0.95 (issue 32; 0.9 in issue 18).
//
// `npm run bench` runs it after the SQLite part unless BENCH_PG=0; `npm run bench -- --pg` runs it
// alone. It is left out, saying so, where no PostgreSQL server programs are installed.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import pg from "pg";
import { findPostgres, startPostgres, type PostgresServer } from "../test/helpers/postgres.ts";
import {
  CATEGORIES,
  ENDPOINTS,
  KEY,
  load,
  POSTS,
  REPO,
  USERS,
  categoryId,
  inTurn,
  median,
  medianBy,
  migrate,
  removeWorkDir,
  send,
  settings,
  startServer,
  tablegenGenerate,
  transpileCeiling,
  transpileServer,
  workDir,
  type Endpoint,
  type Server,
  type ServerKind,
} from "./lib.ts";
import { cpuMs, parentOf, processTree } from "./proc.ts";

/** What bench/run.ts's measureRound gives for a round (a subset of its Round). */
export interface PgRound {
  round: number;
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  cores: number;
  loadCores: number;
  foreignCores: number;
  stealCores: number;
  databaseCores?: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export type MeasureRound<R extends PgRound> = (
  server: Pick<Server, "base" | "pid"> & { kind: string },
  endpoint: Endpoint,
  round: number,
  database?: () => () => number,
) => Promise<R>;

/** BENCH_PG_POOLER: the generated servers' DATABASE_POOLER (the lean ceiling keeps its named statements). */
const POOLER = process.env.BENCH_PG_POOLER;

/** The servers loaded in each round: a label (also measureRound's kind, tagging its creates), what starts. */
const SERVERS = [
  { label: "pg-gen", name: "generated", kind: "generated", workers: 0 },
  { label: "pg-lean", name: "lean", kind: "lean-pg", workers: 0 },
  { label: "pg-gen-x2", name: "generated ×2", kind: "cluster", workers: 2 },
  { label: "pg-lean-x2", name: "lean ×2", kind: "lean-pg", workers: 2 },
] as const satisfies readonly { label: string; name: string; kind: ServerKind; workers: number }[];
type Label = (typeof SERVERS)[number]["label"];

/**
 * Generated ÷ lean ceiling on every endpoint, on PostgreSQL as on SQLite: 0.9 in issue 18, 0.95 with
 * request logs on (the default LOG_LEVEL=info) since issue 32.
 */
const TARGET = 0.95;

export interface PgEndpointResult<R extends PgRound> {
  endpoint: string;
  rounds: Partial<Record<Label, R[]>>;
  median: Partial<Record<Label, R>>;
  /** generated ÷ lean, one process and two processes: median rounds, paired rounds, best rounds, CPU/req. */
  single: Ratios;
  double?: Ratios;
}

interface Ratios {
  ratio: number;
  paired: number;
  best: number;
  /** lean CPU µs/req ÷ generated CPU µs/req, medians over the rounds. */
  cpu: number;
}

export interface PgParity {
  request: string;
  server: string;
  identical: boolean;
  answer?: string;
  expected?: string;
}

export type PgResult<R extends PgRound> =
  | { skipped: string }
  | {
      postgres: string;
      parity: PgParity[];
      results: PgEndpointResult<R>[];
      clustered: boolean;
    };

const log = (message: string) => console.error(`[bench pg ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** The PostgreSQL seed: the same rows bench/lib.ts's seed() writes into SQLite, in PostgreSQL's types. */
async function seedPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const bio = "Writes about databases, HTTP servers and the cost of abstractions. ".repeat(2).trim();
    const stamp = (day: number) => `2024-01-${String(day).padStart(2, "0")}T10:00:00Z`;
    await client.query("BEGIN");
    for (let i = 1; i <= USERS; i++) {
      await client.query(
        `INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at") VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          `User ${i}`,
          `user${i}@example.com`,
          `+1 555 010 ${String(i).padStart(4, "0")}`,
          bio,
          i % 5 !== 0,
          stamp((i % 28) + 1),
        ],
      );
    }
    for (let i = 1; i <= CATEGORIES; i++) {
      await client.query(`INSERT INTO "categories" ("id", "name") VALUES ($1, $2)`, [categoryId(i), `Category ${i}`]);
    }
    for (let i = 1; i <= POSTS; i++) {
      await client.query(
        `INSERT INTO "posts" ("title", "body", "published", "rating", "user_id", "category_id", "published_at") VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          `Post ${i}`,
          `Body of post ${i}.`,
          i % 2 === 1,
          i / 10,
          ((i - 1) % USERS) + 1,
          categoryId(((i - 1) % CATEGORIES) + 1),
          stamp((i % 28) + 1),
        ],
      );
    }
    await client.query("COMMIT");
    await client.query("ANALYZE");
  } finally {
    await client.end();
  }
}

/**
 * Runs statements on the server's `postgres` database (CREATE DATABASE cannot run in a transaction);
 * returns the postmaster's pid, the parent of this session's backend, read while the backend lives.
 */
async function admin(postgres: PostgresServer, statements: string[]): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: `${postgres.url}/postgres` });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
    const backend = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    return parentOf(backend);
  } finally {
    await client.end();
  }
}

/**
 * Starts reading the CPU time of PostgreSQL's processes (the postmaster and every backend and worker
 * under it); the function returned gives the ms used since. A process that ends before the reading
 * loses its time (the servers' pools keep their connections open through a round).
 */
function postgresCpu(postmaster: number): () => () => number {
  const read = () => {
    const times = new Map<number, number>();
    for (const pid of processTree(postmaster)) {
      try {
        times.set(pid, cpuMs(pid));
      } catch {
        // ended meanwhile
      }
    }
    return times;
  };
  return () => {
    const before = read();
    return () => {
      let ms = 0;
      for (const [pid, time] of read()) ms += time - (before.get(pid) ?? 0);
      return ms;
    };
  };
}

/** The requests whose answers every server must give as the generated server gives them. */
function parityRequests(endpoints: Endpoint[]) {
  const reads = endpoints
    .filter((endpoint) => endpoint.method === "GET")
    .map((endpoint) => ({ label: `GET ${endpoint.path}`, path: endpoint.path, key: true }));
  return [
    ...reads,
    { label: "GET /blog/users/v1/show/100000 (404)", path: "/blog/users/v1/show/100000", key: true },
    { label: "GET /blog/users/v1/list without the key (401)", path: "/blog/users/v1/list", key: false },
    {
      label: "GET /blog/v1/category_posts?category_id=not-a-uuid (400)",
      path: "/blog/v1/category_posts?category_id=not-a-uuid",
      key: true,
    },
  ];
}

function compare(label: string, server: string, answer: Answer, expected: Answer): PgParity {
  const parse = (text: string) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  const identical = answer.status === expected.status && isDeepStrictEqual(parse(answer.body), parse(expected.body));
  if (identical) return { request: label, server, identical };
  log(`WARNING: ${server} answers ${label} differently from the generated server`);
  return {
    request: label,
    server,
    identical,
    answer: `${answer.status} ${answer.body.slice(0, 300)}`,
    expected: `${expected.status} ${expected.body.slice(0, 300)}`,
  };
}
type Answer = { status: number; body: string };

async function readParity(servers: Map<Label, Server>, endpoints: Endpoint[]): Promise<PgParity[]> {
  const parity: PgParity[] = [];
  const generated = servers.get("pg-gen")!;
  for (const { label, path, key } of parityRequests(endpoints)) {
    const headers: Record<string, string> = key ? { "x-api-signature": KEY } : {};
    const expected = await send(generated.base + path, { headers });
    for (const [name, server] of servers) {
      if (name !== "pg-gen") parity.push(compare(label, name, await send(server.base + path, { headers }), expected));
    }
  }
  return parity;
}

/** The same new user created on every server (each on its own database copy, in the same state), then again (409). */
async function createParity(servers: Map<Label, Server>, endpoint: Endpoint): Promise<PgParity[]> {
  const body = JSON.stringify({
    name: "Parity",
    email: "parity@example.com",
    phone: "+1 555 0199",
    created_at: "2024-05-06T07:08:09.600+02:00",
  });
  const create = (server: Server) =>
    send(server.base + endpoint.path, {
      method: "POST",
      headers: { "x-api-signature": KEY, "content-type": "application/json" },
      body,
    });
  const parity: PgParity[] = [];
  const generated = servers.get("pg-gen")!;
  for (const label of [`POST ${endpoint.path}`, `POST ${endpoint.path} again (409)`]) {
    const expected = await create(generated);
    for (const [name, server] of servers) {
      if (name !== "pg-gen") parity.push(compare(label, name, await create(server), expected));
    }
  }
  return parity;
}

function ratios<R extends PgRound>(generated: R[], lean: R[]): Ratios {
  const cpu = (rounds: R[]) => median(rounds.map((round) => round.cpuUsPerRequest));
  return {
    ratio: medianBy(generated, (r) => r.rps).rps / medianBy(lean, (r) => r.rps).rps,
    paired: median(generated.map((round, i) => round.rps / lean[i]!.rps)),
    best: Math.max(...generated.map((r) => r.rps)) / Math.max(...lean.map((r) => r.rps)),
    cpu: cpu(lean) / cpu(generated),
  };
}

export interface PgSetUp {
  /** The generated server's directory (transpiled), with bench/lean-pg.ts transpiled beside it. */
  serverDir: string;
  /** PostgreSQL's version line. */
  version: string;
  /** Starts reading PostgreSQL's CPU time; the function returned gives the ms used since. */
  databaseCpu: () => () => number;
  /** A fresh copy of the migrated, seeded database under this name; its URL. */
  copy: (name: string) => Promise<string>;
  /** Stops PostgreSQL and removes the work directory (unless BENCH_KEEP=1). */
  stop: () => Promise<void>;
}

/**
 * The blog example generated for PostgreSQL and transpiled, the lean pg ceiling transpiled, a
 * throwaway PostgreSQL with a migrated and seeded database to copy.
 */
export async function setUpPostgres(): Promise<PgSetUp | { skipped: string }> {
  const bin = findPostgres();
  if (!bin) {
    log("no PostgreSQL server programs (initdb, pg_ctl) found: PostgreSQL is left out");
    return { skipped: "no PostgreSQL server programs (initdb, pg_ctl) on this machine" };
  }
  const work = await workDir("bench-pg");
  const serverDir = join(work, "server");
  let postgres: PostgresServer | undefined;
  const stop = async () => {
    await postgres?.stop();
    await removeWorkDir(work);
  };
  try {
    log(`generating examples/blog.yaml for PostgreSQL into ${serverDir}`);
    const manifest = join(work, "blog.yaml");
    const text = await readFile(join(REPO, "examples", "blog.yaml"), "utf8");
    if (!text.includes("database: sqlite")) throw new Error("examples/blog.yaml no longer says `database: sqlite`");
    await writeFile(manifest, text.replace("database: sqlite", "database: postgresql"));
    await tablegenGenerate(manifest, serverDir);
    await transpileServer(serverDir);
    await transpileCeiling(serverDir, ["lean-pg"]);

    postgres = await startPostgres(bin);
    const server = postgres;
    const postmaster = (await admin(postgres, ["CREATE DATABASE bench_seed"]))!;
    const seedUrl = `${postgres.url}/bench_seed`;
    await migrate(serverDir, seedUrl);
    await seedPostgres(seedUrl);
    const version = (await pgVersion(seedUrl)).replace(/ on .*/, "");
    log(`${version}, postmaster ${postmaster}; migrated and seeded`);
    return {
      serverDir,
      version,
      databaseCpu: postgresCpu(postmaster),
      copy: async (name) => {
        await admin(server, [`CREATE DATABASE "${name}" TEMPLATE bench_seed`]);
        return `${server.url}/${name}`;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The PostgreSQL benchmark. `measureRound` is bench/run.ts's (the same load, CPU and noise readings
 * as the SQLite rounds); `running` collects the servers started, for the caller to stop on failure.
 */
export async function pgBenchmark<R extends PgRound>(
  measureRound: MeasureRound<R>,
  running: Server[],
): Promise<PgResult<R>> {
  const setup = await setUpPostgres();
  if ("skipped" in setup) return setup;
  const { serverDir, version, databaseCpu, copy } = setup;
  try {
    const only = process.env.BENCH_ENDPOINTS?.split(",");
    const endpoints = ENDPOINTS.filter((entry) => !only || only.includes(entry.name));
    const loaded = SERVERS.filter((server) => settings.cluster || server.workers === 0);
    const rounds = new Map(endpoints.map((endpoint) => [endpoint.name, {} as Partial<Record<Label, R[]>>]));
    let parity: PgParity[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const order = inTurn(loaded, round);
      const servers = new Map<Label, Server>();
      for (const entry of loaded) {
        const server = await startServer({
          kind: entry.kind,
          serverDir,
          databaseUrl: await copy(`${entry.label.replaceAll("-", "_")}_${round}`),
          env: {
            ...(entry.workers > 0 && { WORKERS: String(entry.workers) }),
            // BENCH_PG_POOLER=transaction: the generated servers run every statement unnamed, as behind
            // a pooler in transaction mode, on the same direct connection (issue 30's cost).
            ...(POOLER && entry.kind !== "lean-pg" && { DATABASE_POOLER: POOLER }),
          },
        });
        running.push(server);
        servers.set(entry.label, server);
      }
      if (round === 1) parity = await readParity(servers, endpoints);
      for (const endpoint of endpoints) {
        if (round === 1 && endpoint.method === "POST") parity.push(...(await createParity(servers, endpoint)));
        for (const entry of order)
          await load(servers.get(entry.label)!, endpoint, settings.warmup, `${entry.label}-${round}-warmup`);
        const byLabel = rounds.get(endpoint.name)!;
        for (const entry of order) {
          const server = servers.get(entry.label)!;
          const result = await measureRound({ ...server, kind: entry.label }, endpoint, round, databaseCpu);
          (byLabel[entry.label] ??= []).push(result);
        }
      }
      for (const server of servers.values()) {
        await server.stop();
        running.splice(running.indexOf(server), 1);
      }
    }
    const results = endpoints.map((endpoint): PgEndpointResult<R> => {
      const byLabel = rounds.get(endpoint.name)!;
      const medianOf = Object.fromEntries(
        Object.entries(byLabel).map(([label, list]) => [label, medianBy(list, (r) => r.rps)]),
      ) as Partial<Record<Label, R>>;
      return {
        endpoint: endpoint.name,
        rounds: byLabel,
        median: medianOf,
        single: ratios(byLabel["pg-gen"]!, byLabel["pg-lean"]!),
        ...(byLabel["pg-gen-x2"] && { double: ratios(byLabel["pg-gen-x2"], byLabel["pg-lean-x2"]!) }),
      };
    });
    return { postgres: version, parity, results, clustered: loaded.length > 2 };
  } finally {
    for (const server of [...running]) await server.stop().catch(() => {});
    running.length = 0;
    await setup.stop();
  }
}

async function pgVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ version: string }>("SELECT version()")).rows[0]!.version;
  } finally {
    await client.end();
  }
}

const fmt = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "–";
const met = (ok: boolean) => (ok ? "met" : "**not met**");

/** The report's PostgreSQL section (markdown lines). */
export function renderPg<R extends PgRound>(result: PgResult<R>): string[] {
  if ("skipped" in result) return [``, `### PostgreSQL`, ``, `Left out: ${result.skipped}.`];
  const lines = [
    ``,
    `### PostgreSQL: the generated server against the lean pg ceiling (generated / lean)`,
    ``,
    `${result.postgres}, started by the benchmark (initdb into the OS temp dir, loopback, \`fsync=off\`, ` +
      `\`synchronous_commit=off\`), on the same machine as the servers and the load generator. examples/blog.yaml generated ` +
      `with \`database: postgresql\`; the lean ceiling is \`bench/lean-pg.ts\` (Fastify + pg, the same paths, answers, ` +
      `schemas and key check as \`bench/lean.ts\`, a pg.Pool of 10, named prepared statements, positional parameters). ` +
      `${settings.rounds} rounds, each on fresh servers, each on its own copy of the seeded database (\`CREATE DATABASE … ` +
      `TEMPLATE\`); per endpoint a ${settings.warmup} s warm-up of each, then ${settings.duration} s of each in the order ` +
      `generated, lean${result.clustered ? ", generated ×2 (`dist/cluster.js`, WORKERS=2), lean ×2 (node:cluster, WORKERS=2)" : ""}, ` +
      `reversed every other round; ` +
      `every process has a pool of 10 connections. PostgreSQL's CPU (all its processes) is read apart from the server's.` +
      (POOLER
        ? ` The generated servers run with \`DATABASE_POOLER=${POOLER}\` (BENCH_PG_POOLER): every statement unnamed.`
        : ""),
    ``,
    `| endpoint | generated req/s | p50 ms | CPU µs/req | PostgreSQL cores | lean req/s | p50 ms | CPU µs/req | PostgreSQL cores | generated / lean, median round | paired rounds | best round | CPU/req (lean ÷ generated) | target | |`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|`,
  ];
  const row = (result: PgEndpointResult<R>, generated: Label, lean: Label, ratios: Ratios) => {
    const [g, l] = [result.median[generated]!, result.median[lean]!];
    return (
      `| ${result.endpoint} | ${fmt(g.rps, 0)} | ${fmt(g.p50, 2)} | ${fmt(g.cpuUsPerRequest, 0)} | ${fmt(g.databaseCores ?? NaN, 2)} ` +
      `| ${fmt(l.rps, 0)} | ${fmt(l.p50, 2)} | ${fmt(l.cpuUsPerRequest, 0)} | ${fmt(l.databaseCores ?? NaN, 2)} ` +
      `| **${fmt(ratios.ratio, 2)}** | ${fmt(ratios.paired, 2)} | ${fmt(ratios.best, 2)} | ${fmt(ratios.cpu, 2)} | ≥ ${TARGET} | ${met(ratios.ratio >= TARGET)} |`
    );
  };
  lines.push(...result.results.map((r) => row(r, "pg-gen", "pg-lean", r.single)));
  if (result.clustered) {
    lines.push(
      ``,
      `Two processes of each (CPU µs/req summed over the primary and its workers):`,
      ``,
      lines[lines.length - result.results.length - 2]!,
      lines[lines.length - result.results.length - 1]!,
      ...result.results.map((r) => row(r, "pg-gen-x2", "pg-lean-x2", r.double!)),
    );
  }
  const every = (r: PgEndpointResult<R>) =>
    Object.entries(r.rounds)
      .map(([label, list]) => `${label} ${list.map((round) => fmt(round.rps, 0)).join("/")}`)
      .join(", ");
  const all = result.results.flatMap((r) => Object.values(r.rounds).flat());
  const range = (values: number[]) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
  const bad = result.results.flatMap((r) =>
    Object.entries(r.rounds).flatMap(([label, list]) =>
      list
        .filter((round) => round.non2xx + round.errors + round.timeouts > 0)
        .map(
          (round) =>
            `${r.endpoint} ${label} round ${round.round}: ${round.non2xx} non-2xx, ${round.errors} errors, ${round.timeouts} timeouts`,
        ),
    ),
  );
  lines.push(
    ``,
    `Every round (req/s): ${result.results.map((r) => `${r.endpoint}: ${every(r)}`).join("; ")}.`,
    ``,
    `CPU during the rounds, in cores: PostgreSQL ${range(all.map((r) => r.databaseCores ?? NaN))}, load generator ` +
      `${range(all.map((r) => r.loadCores))}, other processes up to ${fmt(Math.max(...all.map((r) => r.foreignCores)), 2)}, ` +
      `hypervisor steal up to ${fmt(Math.max(...all.map((r) => r.stealCores)), 2)}.`,
    ``,
    bad.length === 0 ? `Every response under load was 2xx.` : `Rounds with failures: ${bad.join("; ")}.`,
    ``,
    result.parity.every((entry) => entry.identical)
      ? `Parity: every server answered as the generated server (status and JSON body), ${result.parity.length} checks: ` +
          `${[...new Set(result.parity.map((entry) => entry.request))].join(", ")}.`
      : `Parity: **answers differ**: ${result.parity
          .filter((entry) => !entry.identical)
          .map((entry) => `${entry.server} ${entry.request}: ${entry.answer} / generated ${entry.expected}`)
          .join("; ")}`,
  );
  return lines;
}
