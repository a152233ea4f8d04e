// `npm run bench`: the generated server of examples/blog.yaml against a hand-written ceiling
// (bench/ceiling.ts) on the same data, plus its cluster mode, generation and start-up times. See
// bench/RESULTS.md.
//
//   1. generates examples/blog.yaml with the CLI into .tmp/bench-*/server, migrates it with the
//      server's own `npm run migrate` and seeds it (100 users, 10 categories, 100 posts); builds it
//      (`npm run build`, tsc, kept in dist-prod/) for the compiled start-up; then runs its
//      `npm run -s transpile` (`node run.js`: esbuild, src/ → dist/), once, timed; and
//      transpiles bench/ceiling.ts the same way, so that both servers are plain JavaScript;
//   2. times `tablegen generate` of a synthetic manifest of 50, 200 and 1,000 tables, into a fresh
//      directory and over its own output, wall and CPU time (bench/synthetic.ts; BENCH_GENERATION_TABLES);
//   3. starts each server BENCH_STARTS times: spawn → first 200 answer of a list request, and the
//      RSS right then. The generated server starts as its `npm start` starts it, without npm:
//      `node run.js server` (dist/ found up to date, then dist/server.js in the same process); also
//      compiled by tsc (`node dist/server.js` as `npm run start:prod` runs it); in cluster mode
//      (`node run.js cluster`, one worker per core, RSS summed over the primary and its workers
//      once every worker listens); and `npm start` as a whole (npm + run.js + node → first answer),
//      with nothing changed since the last start and after an edit of one file (it transpiles it);
//   4. BENCH_ROUNDS rounds; each starts fresh server processes (generated, ceiling, lean ceiling
//      (bench/lean.ts), cluster), each
//      on its own fresh copy of the seeded database (creates do not interfere, list always answers
//      the 100 seeded users, and the rounds sample the variation between processes), and per
//      endpoint (show, list, custom query, create) warms each up for BENCH_WARMUP seconds, then
//      loads generated, then ceiling, then lean, then cluster, for BENCH_DURATION seconds each, each load run
//      by autocannon in a process of its own (bench/load.ts). In the first round the servers must
//      answer the benchmarked requests identically (parity).
//      Reported: the median round, with the server's CPU time per request and RSS from /proc (for
//      the cluster, summed over its processes).
//   5. the peers (bench/peers.ts, installed once into .tmp/bench-peers/ with npm): PocketBase and
//      json-server holding the same 100 users, their answers checked against the generated
//      server's, then loaded on show, list and create beside a fresh generated server, in the same
//      rounds; reported as peer ÷ generated. BENCH_PEERS=0 leaves them out.
//   6. how cost grows with the table (bench/growth.ts): show, the first page and the whole list of
//      users at 100, 10,000 and 1,000,000 rows beside the lean ceiling, and migrate of a
//      1,000,000-row table for an added and a renamed field. BENCH_GROWTH=0 leaves it out.
//   7. PostgreSQL (bench/pg.ts): the example generated for PostgreSQL against the lean pg ceiling
//      (bench/lean-pg.ts) on a throwaway PostgreSQL, one and two processes of each, show, list,
//      query and create. BENCH_PG=0 leaves it out; `npm run bench -- --pg` runs it alone.
//   8. keys (bench/keys.ts): the generated server without keys, with keys and the full key, with a
//      scoped key, with a limited key, and the lean ceiling, on SQLite and PostgreSQL. BENCH_KEYS=0
//      leaves it out; `npm run bench -- --keys` runs it alone.
//
// Environment: BENCH_DURATION (5 s), BENCH_ROUNDS (3), BENCH_WARMUP (1.5 s), BENCH_CONNECTIONS (10),
// BENCH_STARTS (5), BENCH_GENERATIONS (3), BENCH_ENDPOINTS (show,list,query,create), BENCH_CLUSTER=0
// (leave the cluster out), BENCH_PEERS=0 (leave the peers out), BENCH_GENERATION_TABLES (50,200,1000;
// `50,200` leaves the slow 1,000 out), BENCH_GROWTH=0 (leave out how cost grows with the table; its own knobs
// are in bench/growth.ts), BENCH_PG=0 (leave PostgreSQL out), BENCH_KEEP=1 (keep .tmp/bench-*),
// BENCH_LOG_LEVEL (info: every server's LOG_LEVEL; standard output to a file of the scratch directory).
// Everything listens on 127.0.0.1 only. Raw results:
// .tmp/bench-results.json.
import { availableParallelism, cpus, release, totalmem } from "node:os";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  copyDatabase,
  ENDPOINTS,
  KEY,
  LIST_PATH,
  load,
  inTurn,
  median,
  medianBy,
  migrate,
  REPO,
  removeWorkDir,
  seed,
  send,
  get,
  settings,
  startServer,
  tablegenGenerate,
  buildServer,
  timeNpmStart,
  transpileCeiling,
  transpileServer,
  treeMemory,
  workDir,
  type Endpoint,
  type Server,
  type ServerKind as AnyServerKind,
} from "./lib.ts";
import type { LoadResult } from "./load.ts";
import { GENERATION_SIZES, GENERATION_TARGETS, generationGrowth, type GenerationRun } from "./synthetic.ts";
import { growthBenchmark, renderGrowth, type GrowthResult } from "./growth.ts";
import { pgBenchmark, renderPg, type PgResult } from "./pg.ts";
import { keysBenchmark, renderKeys, type KeysResult } from "./keys.ts";
import { ensurePeers, jsonServerUsers, pocketbaseUsers, type User, type UsersPeer } from "./peers.ts";

/** The SQLite servers (bench/pg.ts loads the PostgreSQL ones). */
type ServerKind = Exclude<AnyServerKind, "lean-pg">;

/** The servers compared: the generated server (one process), the ceiling and the lean ceiling. */
const KINDS: ServerKind[] = ["generated", "ceiling", "lean"];
const START_MODES = ["generated", "compiled", "cluster", "ceiling", "lean"] as const;
type StartMode = (typeof START_MODES)[number];
interface StartRun {
  ms: number;
  rssMb: number;
  /** Cluster: spawn → every worker listening, ms; and how many workers. */
  allListeningMs?: number;
  workers?: number;
}
type Starts = Record<StartMode, StartRun[]>;
type Memory = { rssMb: number; peakMb: number; processes: number };

/** Targets of the issue (a benchmark, not tests). */
const TARGETS = {
  ratio: { show: 0.8, list: 0.8, create: 0.8 } as Record<string, number | undefined>,
  /** Generated / lean ceiling on every endpoint: 0.9 in issue 18, 0.95 with request logs on since issue 32. */
  leanRatio: 0.95,
  startupMs: 500,
  idleRssMb: 100,
};

/** The file of the generated server touched before the second `npm start` of each pair, as an edit would. */
const EDITED = "src/custom/routes.ts";

interface Round extends LoadResult {
  round: number;
  /** Server CPU time per 2xx response, microseconds. */
  cpuUsPerRequest: number;
  /** Server CPU use during the round, in cores. */
  cores: number;
  /** CPU the load generator used, in cores. */
  loadCores: number;
  /** CPU used by anything else on the machine during the round (other people's processes), in cores. */
  foreignCores: number;
  /** CPU the database server used during the round, in cores (PostgreSQL: bench/pg.ts), when measured. */
  databaseCores?: number;
  /** CPU stolen by the hypervisor during the round, in cores. */
  stealCores: number;
  /** VmRSS after the round, MB (a cluster: summed over its processes). */
  rssMb: number;
}

/** A round is disturbed when something else used more than this much CPU (cores) during it. */
const NOISE_CORES = 0.15;
const disturbed = (round: Round) => round.foreignCores > NOISE_CORES || round.stealCores > NOISE_CORES;

interface EndpointResult {
  endpoint: string;
  rounds: Record<ServerKind, Round[]>;
  median: Record<ServerKind, Round>;
  /** generated req/s ÷ ceiling req/s, of the median rounds. */
  ratio: number;
  /** ceiling CPU µs/request ÷ generated CPU µs/request (medians over the rounds). */
  cpuRatio: number;
  /** The best round of each (interference only ever slows a round down). */
  bestRatio: number;
  /** Median over rounds of generated round i ÷ ceiling round i (run right after it): cancels slow drifts. */
  pairedRatio: number;
  /** Medians over the undisturbed rounds only, when each server has one. */
  quietRatio?: number;
  quietRounds: Record<"generated" | "ceiling" | "lean", number>;
  /** The same estimators against the lean ceiling (bench/lean.ts). */
  lean: { ratio: number; cpuRatio: number; bestRatio: number; pairedRatio: number; quietRatio?: number };
  cluster?: ClusterResult;
}

interface ClusterResult {
  /** The median round by req/s. */
  median: Round;
  /** cluster req/s ÷ generated (one process) req/s, and ÷ ceiling req/s, of the median rounds. */
  vsGenerated: number;
  vsCeiling: number;
  /** Median over rounds of cluster round i ÷ generated round i. */
  pairedVsGenerated: number;
  /** Server CPU µs/request, median over the rounds: cluster (all processes) and one process. */
  cpuUsPerRequest: number;
}

function log(message: string) {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

const databaseUrl = (kind: ServerKind) => `file:./${kind}.db`;

async function main() {
  const begun = performance.now();
  const machine = {
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
  };
  log(
    `node ${machine.node}, ${machine.cpus} cores (${machine.cpuModel}); ${settings.rounds} rounds × ${settings.duration} s, ` +
      `${settings.connections} connections, ${settings.warmup} s warm-up`,
  );

  const work = await workDir();
  const serverDir = join(work, "server");
  const running: Server[] = [];
  try {
    // 1. The example, migrated and seeded.
    log(`generating examples/blog.yaml into ${serverDir}`);
    const blogGenerateMs = await tablegenGenerate(join(REPO, "examples", "blog.yaml"), serverDir);
    await migrate(serverDir, "file:./seed.db");
    seed(join(serverDir, "seed.db"));
    const { scripts } = JSON.parse(await readFile(join(serverDir, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    // What this harness starts must be what `npm start` and `npm run cluster` start.
    const expected = {
      start: "node run.js server",
      cluster: "node run.js cluster",
    };
    for (const [script, command] of Object.entries(expected)) {
      if (scripts[script] !== undefined && !scripts[script].includes(command)) {
        log(`WARNING: the generated \`npm run ${script}\` is "${scripts[script]}"; this harness starts "${command}"`);
      }
    }
    const withCluster = settings.cluster && scripts.cluster !== undefined;
    if (settings.cluster && !withCluster)
      log("WARNING: the generated server has no `npm run cluster`: cluster left out");

    log("building the generated server (npm run build, tsc) for the compiled start-up");
    let build: { ms?: number; error?: string };
    try {
      build = { ms: await buildServer(serverDir) };
    } catch (error) {
      build = { error: (error as Error).message.split("\n").slice(0, 5).join(" ") };
      log(`WARNING: npm run build failed, the compiled start-up is not measured: ${build.error}`);
    }
    log("transpiling the generated server (npm run -s transpile) and the ceiling (esbuild)");
    const transpileMs = await transpileServer(serverDir);
    const ceilingTranspileMs = await transpileCeiling(serverDir);
    if (withCluster && !existsSync(join(serverDir, "dist", "cluster.js"))) {
      throw new Error("npm run transpile left no dist/cluster.js although the server has `npm run cluster`");
    }
    log(`npm run -s transpile: ${fmt(transpileMs, 0)} ms; the ceiling: ${fmt(ceilingTranspileMs, 0)} ms`);
    for (const kind of ["generated", "ceiling", "lean", "cluster"] as const) {
      copyDatabase(join(serverDir, "seed.db"), join(serverDir, `${kind}.db`));
    }

    // 2. Generation.
    log(`timing tablegen generate at ${GENERATION_SIZES.join(", ")} tables (BENCH_GENERATION_TABLES)`);
    const generationSizes = await generationGrowth();

    // 3. Start-up and idle RSS; `npm start` as a whole.
    log(`starting each server ${settings.starts} times`);
    const starts: Starts = { generated: [], compiled: [], cluster: [], ceiling: [], lean: [] };
    const npmStarts: number[] = [];
    const npmEditedStarts: number[] = [];
    for (let i = 0; i < settings.starts; i++) {
      for (const mode of START_MODES) {
        if (mode === "compiled" && build.ms === undefined) continue;
        if (mode === "cluster" && !withCluster) continue;
        const kind = mode === "compiled" ? "generated" : mode;
        const server = await startServer({
          kind,
          serverDir,
          databaseUrl: databaseUrl(kind),
          compiled: mode === "compiled",
        });
        starts[mode].push({
          ms: server.startupMs,
          rssMb: server.idleRssMb,
          ...(server.allListeningMs !== undefined && {
            allListeningMs: server.allListeningMs,
            workers: server.workers,
          }),
        });
        await server.stop();
      }
      npmStarts.push(await timeNpmStart(serverDir, databaseUrl("generated")));
      npmEditedStarts.push(await timeNpmStart(serverDir, databaseUrl("generated"), EDITED));
    }
    log(
      `start-up, ms: ${START_MODES.filter((mode) => starts[mode].length > 0)
        .map((mode) => `${mode} ${starts[mode].map((run) => fmt(run.ms, 0)).join("/")}`)
        .join(", ")}; npm start as a whole ${npmStarts.map((ms) => fmt(ms, 0)).join("/")}, ` +
        `after an edit of ${EDITED} ${npmEditedStarts.map((ms) => fmt(ms, 0)).join("/")}`,
    );

    // 4. Load. Each round starts fresh server processes on fresh copies of the seeded database (so
    // a round samples the variation between processes too, and list always answers the 100 seeded
    // users); per endpoint, a warm-up of each, then generated, ceiling, lean, cluster, in the reverse
    // order every other round (inTurn).
    const loaded: ServerKind[] = withCluster ? [...KINDS, "cluster"] : KINDS;
    const only = process.env.BENCH_ENDPOINTS?.split(",");
    const endpoints = ENDPOINTS.filter((entry) => !only || only.includes(entry.name));
    const rounds = new Map(
      endpoints.map((endpoint) => [
        endpoint.name,
        { generated: [], ceiling: [], lean: [], cluster: [] } as Record<ServerKind, Round[]>,
      ]),
    );
    let parity: Parity[] = [];
    let afterLoad: Partial<Record<ServerKind, Memory>> = {};
    for (let round = 1; round <= settings.rounds; round++) {
      const order = inTurn(loaded, round);
      const servers = {} as Record<ServerKind, Server>;
      for (const kind of loaded) {
        const database = `${kind}-${round}.db`;
        copyDatabase(join(serverDir, "seed.db"), join(serverDir, database));
        servers[kind] = await startServer({ kind, serverDir, databaseUrl: `file:./${database}` });
        running.push(servers[kind]);
      }
      // The same answers from all, once: the generated server (and its cluster) as the ceiling.
      const compared = loaded.filter((kind) => kind !== "ceiling").map((kind) => servers[kind]);
      if (round === 1) {
        parity = await compareAnswers(
          servers.ceiling,
          compared,
          endpoints.filter((endpoint) => endpoint.method === "GET"),
        );
      }
      for (const endpoint of endpoints) {
        if (round === 1 && endpoint.method === "POST") {
          parity.push(...(await compareCreates(servers.ceiling, compared, endpoint)));
        }
        for (const kind of order) await load(servers[kind], endpoint, settings.warmup, `${kind}-${round}-warmup`);
        for (const kind of order)
          rounds.get(endpoint.name)![kind].push(await measureRound(servers[kind], endpoint, round));
      }
      afterLoad = Object.fromEntries(loaded.map((kind) => [kind, treeMemory(servers[kind].pid)]));
      for (const server of running) await server.stop();
      running.length = 0;
    }
    const results = endpoints.map((endpoint) => summariseRounds(endpoint.name, rounds.get(endpoint.name)!));

    // 5. The peers, on show, list and create, against the generated server in the same rounds.
    const peers = settings.peers ? await peerBenchmark(serverDir, running) : undefined;

    // 6. How cost grows with the table: show, a page and the whole list at 100, 10,000 and 1,000,000
    // users; migrate of a 1,000,000-row table (bench/growth.ts, its own scratch directory).
    const growth = settings.growth ? await growthBenchmark() : undefined;
    // 7. PostgreSQL: the generated server against the lean pg ceiling, one and two processes.
    const postgres = settings.pg ? await pgBenchmark(measureRound, running) : undefined;
    // 8. What keys cost a request: a scoped key, a limited one, beside the full key and the lean ceiling.
    const keys = settings.keys ? await keysBenchmark(measureRound, running) : undefined;

    const totalSeconds = (performance.now() - begun) / 1000;
    const data = {
      machine,
      settings,
      scripts: { start: scripts.start, cluster: scripts.cluster, transpile: scripts.transpile },
      blogGenerateMs,
      build,
      transpileMs,
      ceilingTranspileMs,
      generationSizes,
      starts,
      npmStarts,
      npmEditedStarts,
      parity,
      results,
      afterLoad,
      peers,
      growth,
      postgres,
      keys,
      totalSeconds,
    };
    console.log(render(data));
    const json = join(REPO, ".tmp", "bench-results.json");
    await writeFile(json, JSON.stringify(data, null, 2));
    log(`raw results: ${json}`);
  } finally {
    for (const server of running) await server.stop().catch(() => {});
    await removeWorkDir(work);
  }
}

/**
 * One measured round of one server on one endpoint. `database` starts reading a database server's
 * CPU time (PostgreSQL's processes) and gives a function that returns the ms used since: that CPU is
 * then the database's, not other processes'.
 */
async function measureRound(
  server: Pick<Server, "base" | "pid"> & { kind: string },
  endpoint: Endpoint,
  round: number,
  database?: () => () => number,
): Promise<Round> {
  const databaseCpu = database?.();
  const result = await load(server, endpoint, settings.duration, `${server.kind}-${round}`);
  const databaseMs = databaseCpu?.() ?? 0;
  const cores = (ms: number) => ms / 1000 / result.duration;
  const entry: Round = {
    ...result,
    round,
    cpuUsPerRequest: (result.serverCpuMs * 1000) / Math.max(1, result.responses),
    cores: cores(result.serverCpuMs),
    loadCores: cores(result.loadCpuMs),
    ...(database && { databaseCores: cores(databaseMs) }),
    foreignCores: Math.max(0, cores(result.machineBusyMs - result.serverCpuMs - result.loadCpuMs - databaseMs)),
    stealCores: cores(result.stealMs),
    rssMb: treeMemory(server.pid).rssMb,
  };
  log(
    `${endpoint.name} round ${round} ${server.kind.padEnd(9)} ${fmt(entry.rps, 0).padStart(6)} req/s  p50 ${fmt(entry.p50, 2)} ms  ` +
      `p99 ${fmt(entry.p99, 2)} ms  ${fmt(entry.cpuUsPerRequest, 0)} µs CPU/req  cores: server ${fmt(entry.cores, 2)} ` +
      `load ${fmt(entry.loadCores, 2)}${entry.databaseCores === undefined ? "" : ` postgres ${fmt(entry.databaseCores, 2)}`} other ${fmt(entry.foreignCores, 2)} steal ${fmt(entry.stealCores, 2)}` +
      (disturbed(entry) ? "  (disturbed: other processes or steal)" : "") +
      (entry.non2xx + entry.errors + entry.timeouts > 0
        ? `  WARNING: ${entry.non2xx} non-2xx (first ${entry.firstBadStatus}), ${entry.errors} errors, ${entry.timeouts} timeouts`
        : ""),
  );
  return entry;
}

/** An endpoint's rounds: the median round by req/s of each server, and the ratios. */
function summariseRounds(endpoint: string, rounds: Record<ServerKind, Round[]>): EndpointResult {
  const middle = {
    generated: medianBy(rounds.generated, (round) => round.rps),
    ceiling: medianBy(rounds.ceiling, (round) => round.rps),
    lean: medianBy(rounds.lean, (round) => round.rps),
  } as Record<ServerKind, Round>;
  const cpuCost = (kind: ServerKind) => median(rounds[kind].map((round) => round.cpuUsPerRequest));
  const best = (kind: ServerKind) => Math.max(...rounds[kind].map((round) => round.rps));
  const quiet = (kind: ServerKind) => rounds[kind].filter((round) => !disturbed(round)).map((round) => round.rps);
  const [quietGenerated, quietCeiling, quietLean] = [quiet("generated"), quiet("ceiling"), quiet("lean")];
  let cluster: ClusterResult | undefined;
  if (rounds.cluster.length > 0) {
    const clusterMedian = medianBy(rounds.cluster, (round) => round.rps);
    cluster = {
      median: clusterMedian,
      vsGenerated: clusterMedian.rps / middle.generated.rps,
      vsCeiling: clusterMedian.rps / middle.ceiling.rps,
      pairedVsGenerated: median(rounds.cluster.map((round, i) => round.rps / rounds.generated[i]!.rps)),
      cpuUsPerRequest: cpuCost("cluster"),
    };
  }
  return {
    endpoint,
    rounds,
    median: middle,
    ratio: middle.generated.rps / middle.ceiling.rps,
    cpuRatio: cpuCost("ceiling") / cpuCost("generated"),
    bestRatio: best("generated") / best("ceiling"),
    pairedRatio: median(rounds.generated.map((round, i) => round.rps / rounds.ceiling[i]!.rps)),
    ...(quietGenerated.length > 0 &&
      quietCeiling.length > 0 && { quietRatio: median(quietGenerated) / median(quietCeiling) }),
    quietRounds: { generated: quietGenerated.length, ceiling: quietCeiling.length, lean: quietLean.length },
    lean: {
      ratio: middle.generated.rps / middle.lean.rps,
      cpuRatio: cpuCost("lean") / cpuCost("generated"),
      bestRatio: best("generated") / best("lean"),
      pairedRatio: median(rounds.generated.map((round, i) => round.rps / rounds.lean[i]!.rps)),
      ...(quietGenerated.length > 0 &&
        quietLean.length > 0 && { quietRatio: median(quietGenerated) / median(quietLean) }),
    },
    ...(cluster && { cluster }),
  };
}

// ---- parity: the ceiling must answer what the generated server answers ---------------------------

interface Parity {
  request: string;
  /** The two servers compared: "generated/ceiling" or "cluster/ceiling". */
  servers: string;
  identical: boolean;
  first?: string;
  second?: string;
}

async function compareAnswers(reference: Server, others: Server[], endpoints: Endpoint[]): Promise<Parity[]> {
  const requests: { label: string; path: string; headers: Record<string, string> }[] = [
    ...endpoints.map((endpoint) => ({
      label: `GET ${endpoint.path}`,
      path: endpoint.path,
      headers: { "x-api-signature": KEY },
    })),
    {
      label: "GET /blog/users/v1/show/100000 (404)",
      path: "/blog/users/v1/show/100000",
      headers: { "x-api-signature": KEY },
    },
    { label: "GET /blog/users/v1/list without the key (401)", path: "/blog/users/v1/list", headers: {} },
  ];
  const parity: Parity[] = [];
  for (const { label, path, headers } of requests) {
    const expected = await send(reference.base + path, { headers });
    for (const other of others) {
      parity.push(same(label, other, reference, await send(other.base + path, { headers }), expected));
    }
  }
  return parity;
}

/** The same new user created on every server (each has its own database copy, in the same state). */
async function compareCreates(reference: Server, others: Server[], endpoint: Endpoint): Promise<Parity[]> {
  const body = JSON.stringify({
    name: "Parity",
    email: "parity@example.com",
    phone: "+1 555 0199",
    created_at: "2024-05-06T07:08:09Z",
  });
  const create = (server: Server) =>
    send(server.base + endpoint.path, {
      method: "POST",
      headers: { "x-api-signature": KEY, "content-type": "application/json" },
      body,
    });
  const expected = await create(reference);
  const parity: Parity[] = [];
  for (const other of others)
    parity.push(same(`POST ${endpoint.path}`, other, reference, await create(other), expected));
  return parity;
}

function same(
  label: string,
  server: Server,
  reference: Server,
  answer: { status: number; body: string },
  expected: { status: number; body: string },
): Parity {
  const parse = (text: string) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  const servers = `${server.kind}/${reference.kind}`;
  const identical = answer.status === expected.status && isDeepStrictEqual(parse(answer.body), parse(expected.body));
  if (identical) return { request: label, servers, identical };
  log(`WARNING: the servers ${servers} answer ${label} differently`);
  return {
    request: label,
    servers,
    identical,
    first: `${answer.status} ${answer.body.slice(0, 300)}`,
    second: `${expected.status} ${expected.body.slice(0, 300)}`,
  };
}

// ---- report --------------------------------------------------------------------------------------

const fmt = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "–";
const met = (ok: boolean) => (ok ? "met" : "**not met**");

/** Generation's cost growth: the CLI at each size, fresh and over its own output. */
function generationSizesTable(runs: GenerationRun[]): string[] {
  if (runs.length === 0) return [];
  const rows = runs.map((run) => {
    const fresh = median(run.cliFresh);
    const target = GENERATION_TARGETS[run.tables];
    const runs = run.cliFresh.map((ms) => fmt(ms, 0)).join(", ");
    return (
      `| ${run.tables} | ${run.files} | ${fmt(run.bytes / 1e6, 1)} | ${fmt(fresh, 0)} (${runs}) | ${fmt(median(run.cpuFresh), 0)} | ` +
      `${fmt(median(run.cliUnchanged), 0)} | ${fmt(median(run.cpuUnchanged), 0)} | ${target === undefined ? "" : `< ${target}`} | ${target === undefined ? "" : met(fresh < target)} | ` +
      `${run.load.map((load) => fmt(load, 1)).join(", ")} |`
    );
  });
  return [
    `Generation (\`node bin/tablegen.js generate\` of the synthetic manifest, BENCH_GENERATION_TABLES; CPU: every thread of the CLI's process):`,
    ``,
    `| tables | files | MB written | fresh directory, median (runs), ms | its CPU, ms | over its own output, median, ms | its CPU, ms | target | | load average before each fresh run |`,
    `|--:|--:|--:|--:|--:|--:|--:|--:|---|---|`,
    ...rows,
  ];
}

function render(data: {
  machine: { node: string; cpus: number; cpuModel: string; memoryGb: number; kernel: string };
  scripts: { start?: string; cluster?: string; transpile?: string };
  blogGenerateMs: number;
  generationSizes: GenerationRun[];
  build: { ms?: number; error?: string };
  transpileMs: number;
  ceilingTranspileMs: number;
  starts: Starts;
  npmStarts: number[];
  npmEditedStarts: number[];
  parity: Parity[];
  results: EndpointResult[];
  afterLoad: Partial<Record<ServerKind, Memory>>;
  peers?: PeerResult;
  growth?: GrowthResult;
  postgres?: PgResult<Round>;
  keys?: KeysResult<Round>;
  totalSeconds: number;
}): string {
  const { machine, starts, parity, results, afterLoad } = data;
  const withCluster = results.some((result) => result.cluster);
  const loaded: ServerKind[] = withCluster ? [...KINDS, "cluster"] : KINDS;
  const lines: string[] = [];
  lines.push(
    `## Results`,
    ``,
    `Node ${machine.node}, ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGb} GB, Linux ${machine.kernel}. ` +
      `autocannon in its own process, ${settings.connections} connections; ${settings.rounds} rounds, each on fresh server processes ` +
      `(generated: \`node run.js server\` as \`npm start\` runs it, dist/ up to date; ceiling: esbuild-transpiled, ` +
      `\`node --enable-source-maps\`${withCluster ? "; cluster: `node run.js cluster`" : ""}) ` +
      `and database copies, with per endpoint a ${settings.warmup} s warm-up of each server, then ${settings.duration} s of generated, ` +
      `then ${settings.duration} s of ceiling, then ${settings.duration} s of the lean ceiling${withCluster ? `, then ${settings.duration} s of cluster` : ""} (the reverse order every other round); the median round by req/s. ` +
      `Run took ${fmt(data.totalSeconds, 0)} s.`,
    ``,
    `### Throughput (generated / ceiling)`,
    ``,
    `| endpoint | generated req/s | p50 ms | p99 ms | CPU µs/req | RSS MB | ceiling req/s | p50 ms | p99 ms | CPU µs/req | RSS MB | ratio req/s | target | | ratio CPU/req |`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|`,
  );
  for (const result of results) {
    const { generated: g, ceiling: c } = result.median;
    const target = TARGETS.ratio[result.endpoint];
    lines.push(
      `| ${result.endpoint} | ${fmt(g.rps, 0)} | ${fmt(g.p50, 2)} | ${fmt(g.p99, 2)} | ${fmt(g.cpuUsPerRequest, 0)} | ${fmt(g.rssMb, 0)} ` +
        `| ${fmt(c.rps, 0)} | ${fmt(c.p50, 2)} | ${fmt(c.p99, 2)} | ${fmt(c.cpuUsPerRequest, 0)} | ${fmt(c.rssMb, 0)} ` +
        `| **${fmt(result.ratio, 2)}** | ${target === undefined ? "–" : `≥ ${target}`} | ${target === undefined ? "" : met(result.ratio >= target)} ` +
        `| ${fmt(result.cpuRatio, 2)} |`,
    );
  }
  const everyRound = (result: EndpointResult, kind: ServerKind) =>
    result.rounds[kind].map((round) => fmt(round.rps, 0)).join("/");
  lines.push(
    ``,
    `Every round (req/s, generated | ceiling | lean ceiling): ` +
      results
        .map(
          (result) =>
            `${result.endpoint} ${everyRound(result, "generated")} | ${everyRound(result, "ceiling")} | ${everyRound(result, "lean")}`,
        )
        .join("; ") +
      `. CPU µs/req is the server process's user+system time over the round divided by its 2xx answers (the ratio CPU/req is ` +
      `ceiling ÷ generated, medians over the rounds: the cost per request, which a saturated load generator does not blur); ` +
      `RSS is VmRSS after the round.`,
  );
  lines.push(
    ``,
    `### Against the lean ceiling (generated / lean)`,
    ``,
    `The lean ceiling (\`bench/lean.ts\`) is the fastest honest server a careful person would write for the same contract and ` +
      `answers: Fastify + better-sqlite3, the same paths, envelope, JSON schemas and formats, a constant-time key check ` +
      `(timingSafeEqual), errors logged; Fastify's logger off (no child logger per request), a synchronous key hook and ` +
      `synchronous handlers, positional parameters. Loaded right after the ceiling in each round, on its own database copy.`,
    ``,
    `| endpoint | generated req/s | lean req/s | p50 ms | p99 ms | CPU µs/req | RSS MB | ratio req/s, median round | paired rounds | best round | undisturbed rounds | ratio CPU/req | target | |`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|`,
    ...results.map((result) => {
      const [g, l, r] = [result.median.generated, result.median.lean, result.lean];
      return (
        `| ${result.endpoint} | ${fmt(g.rps, 0)} | ${fmt(l.rps, 0)} | ${fmt(l.p50, 2)} | ${fmt(l.p99, 2)} | ${fmt(l.cpuUsPerRequest, 0)} | ${fmt(l.rssMb, 0)} ` +
        `| **${fmt(r.ratio, 2)}** | ${fmt(r.pairedRatio, 2)} | ${fmt(r.bestRatio, 2)} | ${r.quietRatio === undefined ? "–" : fmt(r.quietRatio, 2)} (${result.quietRounds.generated}, ${result.quietRounds.lean}) ` +
        `| ${fmt(r.cpuRatio, 2)} | ≥ ${TARGETS.leanRatio} | ${met(r.ratio >= TARGETS.leanRatio)} |`
      );
    }),
    ``,
    `The two ceilings side by side (lean ÷ ceiling, median rounds): ` +
      results
        .map((result) => `${result.endpoint} ${fmt(result.median.lean.rps / result.median.ceiling.rps, 2)}`)
        .join(", ") +
      `.`,
  );
  const rounds = results.flatMap((result) => loaded.flatMap((kind) => result.rounds[kind]));
  const noisy = results.flatMap((result) =>
    loaded.flatMap((kind) =>
      result.rounds[kind]
        .filter(disturbed)
        .map(
          (round) =>
            `${result.endpoint} ${kind} ${round.round} (${fmt(round.foreignCores, 2)}/${fmt(round.stealCores, 2)})`,
        ),
    ),
  );
  const range = (values: number[]) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
  const pairRounds = results.flatMap((result) => KINDS.flatMap((kind) => result.rounds[kind]));
  const clusterRounds = results.flatMap((result) => result.rounds.cluster);
  lines.push(
    ``,
    `CPU during the rounds, in cores of ${data.machine.cpus}: load generator ${range(pairRounds.map((r) => r.loadCores))}` +
      (clusterRounds.length > 0 ? ` (against the cluster ${range(clusterRounds.map((r) => r.loadCores))})` : "") +
      `, hypervisor steal up to ${fmt(Math.max(...rounds.map((r) => r.stealCores)), 2)}, other processes up to ${fmt(Math.max(...rounds.map((r) => r.foreignCores)), 2)}. ` +
      (noisy.length === 0
        ? `No round was disturbed by other processes (> ${NOISE_CORES} cores).`
        : `Rounds during which other processes or the hypervisor (steal) took more than ${NOISE_CORES} cores (other/steal): ${noisy.join(", ")}.`),
    ``,
    `The generated/ceiling ratio by estimator (interference only slows a round down, so on a shared machine the best ` +
      `round and the undisturbed rounds are the cleaner readings; CPU/req is the server's own cost per request):`,
    ``,
    `| endpoint | median round (above) | paired rounds, median | best round | undisturbed rounds (generated, ceiling) | CPU/req |`,
    `|---|--:|--:|--:|--:|--:|`,
    ...results.map(
      (result) =>
        `| ${result.endpoint} | ${fmt(result.ratio, 2)} | ${fmt(result.pairedRatio, 2)} | ${fmt(result.bestRatio, 2)} | ` +
        `${result.quietRatio === undefined ? "–" : fmt(result.quietRatio, 2)} (${result.quietRounds.generated}, ${result.quietRounds.ceiling}) | ${fmt(result.cpuRatio, 2)} |`,
    ),
  );
  const bad = results.flatMap((result) =>
    loaded.flatMap((kind) =>
      result.rounds[kind]
        .filter((round) => round.non2xx + round.errors + round.timeouts > 0)
        .map(
          (round) =>
            `${result.endpoint} ${kind} round ${round.round}: ${round.non2xx} non-2xx, ${round.errors} errors, ${round.timeouts} timeouts`,
        ),
    ),
  );
  lines.push(``, bad.length === 0 ? `Every response under load was 2xx.` : `Rounds with failures: ${bad.join("; ")}.`);
  if (data.peers) lines.push(...renderPeers(data.peers));
  if (data.growth) lines.push(...renderGrowth(data.growth));
  if (data.postgres) lines.push(...renderPg(data.postgres));
  if (data.keys) lines.push(...renderKeys(data.keys));

  // Cluster mode next to one process and the ceiling.
  const workers = starts.cluster[0]?.workers ?? clusterRounds[0]?.serverProcesses;
  if (withCluster) {
    const processes = clusterRounds[0]!.serverProcesses;
    lines.push(
      ``,
      `### Cluster mode (\`npm run cluster\`: \`node run.js cluster\`, WORKERS unset: ${processes - 1} workers + the primary)`,
      ``,
      `| endpoint | cluster req/s | p50 ms | p99 ms | CPU µs/req (all processes) | server cores | load generator cores | RSS MB (sum) | generated, one process: req/s | p50 ms | p99 ms | RSS MB | ceiling req/s | cluster / one process | paired rounds | cluster / ceiling |`,
      `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|`,
    );
    for (const result of results) {
      const k = result.cluster!;
      const m = k.median;
      const g = result.median.generated;
      lines.push(
        `| ${result.endpoint} | ${fmt(m.rps, 0)} | ${fmt(m.p50, 2)} | ${fmt(m.p99, 2)} | ${fmt(k.cpuUsPerRequest, 0)} | ${fmt(m.cores, 2)} ` +
          `| ${fmt(m.loadCores, 2)} | ${fmt(m.rssMb, 0)} | ${fmt(g.rps, 0)} | ${fmt(g.p50, 2)} | ${fmt(g.p99, 2)} | ${fmt(g.rssMb, 0)} ` +
          `| ${fmt(result.median.ceiling.rps, 0)} | **${fmt(k.vsGenerated, 2)}** | ${fmt(k.pairedVsGenerated, 2)} | ${fmt(k.vsCeiling, 2)} |`,
      );
    }
    lines.push(
      ``,
      `Every round (req/s, cluster): ${results.map((result) => `${result.endpoint} ${everyRound(result, "cluster")}`).join("; ")}. ` +
        `Same load generator, connections and endpoints as above; the cluster's CPU time and RSS are summed over the primary and its ` +
        `workers (VmRSS, so pages they share count once per process). On ${machine.cpus} cores the load generator competes with ` +
        `${processes - 1} workers for the CPU, so the cluster's gain over one process is bounded here: it cannot reach ${processes - 1}×.`,
    );
  }

  // Start-up and memory.
  const startup = (mode: StartMode) => {
    const runs = starts[mode];
    if (runs.length === 0) return undefined;
    const warm = runs.length > 1 ? runs.slice(1) : runs;
    return {
      first: runs[0]!.ms,
      median: median(warm.map((run) => run.ms)),
      rss: median(runs.map((run) => run.rssMb)),
      allListening: runs[0]!.allListeningMs === undefined ? undefined : median(warm.map((run) => run.allListeningMs!)),
    };
  };
  const [gs, ps, ks, cs, ls] = [
    startup("generated")!,
    startup("compiled"),
    startup("cluster"),
    startup("ceiling")!,
    startup("lean")!,
  ];
  const compiled = (value: (entry: NonNullable<typeof ps>) => string) =>
    ps ? value(ps) : data.build.error ? "build failed" : "–";
  const clustered = (value: (entry: NonNullable<typeof ks>) => string) => (ks ? value(ks) : "–");
  const afterAll = (kind: ServerKind) => {
    const reading = afterLoad[kind];
    return reading ? `${fmt(reading.rssMb, 0)} / ${fmt(reading.peakMb, 0)}` : "";
  };
  const npmStart = median(data.npmStarts);
  const npmEditedStart = median(data.npmEditedStarts);
  lines.push(
    ``,
    `### Start-up, memory, generation`,
    ``,
    `| measure | generated (\`npm start\`'s node: \`node run.js server\`) | generated compiled by tsc (\`npm run start:prod\`: \`node dist/server.js\`) | cluster (\`node run.js cluster\`${workers ? `, ${workers} workers` : ""}) | ceiling (esbuild, \`node --enable-source-maps\`) | lean ceiling (the same) | target | |`,
    `|---|--:|--:|--:|--:|--:|--:|---|`,
    `| start-up, spawn → first list answer, median of ${Math.max(1, settings.starts - 1)} (ms) | ${fmt(gs.median, 0)} | ${compiled((p) => fmt(p.median, 0))} | ${clustered((k) => fmt(k.median, 0))} | ${fmt(cs.median, 0)} | ${fmt(ls.median, 0)} | < ${TARGETS.startupMs} | ${met(gs.median < TARGETS.startupMs)} (\`npm start\`'s node)${ps ? `, ${met(ps.median < TARGETS.startupMs)} (compiled)` : ""}${ks ? `, ${met(ks.median < TARGETS.startupMs)} (cluster)` : ""} |`,
    `| start-up, the first start after the transpile (ms) | ${fmt(gs.first, 0)} | ${compiled((p) => fmt(p.first, 0))} | ${clustered((k) => fmt(k.first, 0))} | ${fmt(cs.first, 0)} | ${fmt(ls.first, 0)} | | |`,
    `| cluster: spawn → every worker listening, median (ms) | | | ${clustered((k) => fmt(k.allListening ?? NaN, 0))} | | | | |`,
    `| \`npm start\` as a whole: npm + run.js (nothing changed) + node → first list answer, median of ${data.npmStarts.length} (${data.npmStarts.map((ms) => fmt(ms, 0)).join(", ")}) (ms) | ${fmt(npmStart, 0)} | | | | | < ${TARGETS.startupMs} | ${met(npmStart < TARGETS.startupMs)} |`,
    `| \`npm start\` as a whole after an edit of ${EDITED} (run.js transpiles that file), median of ${data.npmEditedStarts.length} (${data.npmEditedStarts.map((ms) => fmt(ms, 0)).join(", ")}) (ms) | ${fmt(npmEditedStart, 0)} | | | | | | |`,
    `| a whole transpile, \`npm run -s transpile\` (run.js, esbuild, every file of src/ → dist/), once (ms) | ${fmt(data.transpileMs, 0)} | | | ${fmt(data.ceilingTranspileMs, 0)} (esbuild of ceiling.ts and lean.ts, no npm) | | | |`,
    `| idle RSS right after start, median (MB; cluster: primary + workers, once every worker listens) | ${fmt(gs.rss, 0)} | ${compiled((p) => fmt(p.rss, 0))} | ${clustered((k) => fmt(k.rss, 0))} | ${fmt(cs.rss, 0)} | ${fmt(ls.rss, 0)} | < ${TARGETS.idleRssMb} | ${met(gs.rss < TARGETS.idleRssMb)} (\`npm start\`'s node)${ps ? `, ${met(ps.rss < TARGETS.idleRssMb)} (compiled)` : ""} |`,
    `| RSS after all the load / peak RSS (MB; cluster: sums over its processes) | ${afterAll("generated")} | | ${afterAll("cluster")} | ${afterAll("ceiling")} | ${afterAll("lean")} | | |`,
    ...(data.build.ms !== undefined
      ? [``, `\`npm run build\` (prisma generate, tsc) of the generated server took ${fmt(data.build.ms, 0)} ms.`]
      : []),
    ``,
    `For scale: \`generate\` of examples/blog.yaml (4 tables) into a fresh directory took ${fmt(data.blogGenerateMs, 0)} ms.`,
    ``,
    ...generationSizesTable(data.generationSizes),
    ``,
    `The generated server's scripts, as measured: \`npm start\` = \`${data.scripts.start ?? "(none)"}\`; ` +
      `\`npm run cluster\` = \`${data.scripts.cluster ?? "(none)"}\`; \`npm run transpile\` = \`${data.scripts.transpile ?? "(none)"}\`.`,
    ``,
    parity.every((entry) => entry.identical)
      ? `Parity: the servers gave identical answers (status and JSON body) to ${parity.length} checks (${[...new Set(parity.map((entry) => entry.servers))].join(", ")}): ${[...new Set(parity.map((entry) => entry.request))].join(", ")}.`
      : `Parity: **answers differ**: ${parity
          .filter((entry) => !entry.identical)
          .map((entry) => `${entry.servers} ${entry.request}: ${entry.first} / ${entry.second}`)
          .join("; ")}`,
  );
  return lines.join("\n");
}

// ---- peers: PocketBase and json-server on the same users, show, list and create (issue 18) ----

const PEER_ENDPOINTS = ["show", "list", "create"] as const;
type PeerEndpoint = (typeof PEER_ENDPOINTS)[number];

interface PeerResult {
  /** The generated server first, then each peer: name and how its access control is set. */
  servers: { name: string; access: string; paths: Record<PeerEndpoint, string> }[];
  /** Whether each peer's answers held the same records as the generated server's, per endpoint. */
  checks: { server: string; endpoint: PeerEndpoint; same: boolean; detail?: string }[];
  installedNow: boolean;
  endpoints: {
    endpoint: PeerEndpoint;
    /** By server name: every round, the median round, and peer ÷ generated (median rounds, paired, CPU/req). */
    rounds: Record<string, Round[]>;
    median: Record<string, Round>;
    ratio: Record<string, number>;
    pairedRatio: Record<string, number>;
    /** generated CPU µs/req ÷ the peer's (above 1: the peer spends less per request). */
    cpuRatio: Record<string, number>;
  }[];
}

/**
 * A fresh generated server on a fresh copy of the seeded database, and both peers holding the same
 * users (read from the generated server's list); each peer's show, list and create answers are
 * checked against the generated server's; then per endpoint (show, list, create, in that order, so
 * list always answers the 100 seeded users) a warm-up of each, then BENCH_ROUNDS rounds of
 * generated, PocketBase, json-server, BENCH_DURATION seconds each. One process of each for all rounds.
 */
async function peerBenchmark(serverDir: string, running: Server[]): Promise<PeerResult> {
  const dir = join(REPO, ".tmp", "bench-peers");
  log(`peers: installing into ${dir} unless already there`);
  const installedNow = await ensurePeers(dir);
  copyDatabase(join(serverDir, "seed.db"), join(serverDir, "peers-generated.db"));
  const generated = await startServer({ kind: "generated", serverDir, databaseUrl: "file:./peers-generated.db" });
  running.push(generated);
  const listed = await send(generated.base + LIST_PATH, { headers: { "x-api-signature": KEY } });
  const users = (JSON.parse(listed.body) as { data: User[] }).data;
  const peers: UsersPeer[] = [];
  try {
    peers.push(await pocketbaseUsers(dir, users));
    peers.push(await jsonServerUsers(dir, users));
    const generatedPaths = {
      show: ENDPOINTS.find((e) => e.name === "show")!.path,
      list: LIST_PATH,
      create: ENDPOINTS.find((e) => e.name === "create")!.path,
    };

    // The same records first.
    const checks: PeerResult["checks"] = [];
    const strip = ({ id: _id, ...rest }: User) => rest;
    const key = (record: Omit<User, "id">) => JSON.stringify(record);
    const sameSet = (a: Omit<User, "id">[], b: Omit<User, "id">[]) =>
      a.length === b.length && isDeepStrictEqual(a.map(key).sort(), b.map(key).sort());
    const show = (JSON.parse((await get(generated.base + generatedPaths.show)).body) as { data: User }).data;
    const probe = { name: "Peer Check", email: "peer-check@example.com", phone: "+1 555 0199", bio: "Checked." };
    const createdByGenerated = JSON.parse(
      (
        await send(generated.base + generatedPaths.create, {
          method: "POST",
          headers: { "x-api-signature": KEY, "content-type": "application/json" },
          body: JSON.stringify(probe),
        })
      ).body,
    ) as { data: User };
    for (const peer of peers) {
      const answer = async (path: string, init?: { method: string; body: string }) => {
        const reply = await send(peer.base + path, {
          method: init?.method ?? "GET",
          headers: { "content-type": "application/json" },
          ...(init && { body: init.body }),
        });
        return { status: reply.status, body: JSON.parse(reply.body) as unknown };
      };
      const shown = await answer(peer.paths.show);
      const shownSame = shown.status === 200 && isDeepStrictEqual(peer.records("show", shown.body), [strip(show)]);
      checks.push({
        server: peer.name,
        endpoint: "show",
        same: shownSame,
        ...(!shownSame && { detail: JSON.stringify(shown.body).slice(0, 300) }),
      });
      const all = await answer(peer.paths.list);
      const listSame = all.status === 200 && sameSet(peer.records("list", all.body), users.map(strip));
      checks.push({
        server: peer.name,
        endpoint: "list",
        same: listSame,
        ...(!listSame && { detail: JSON.stringify(all.body).slice(0, 300) }),
      });
      const made = await answer(peer.paths.create, { method: "POST", body: JSON.stringify(probe) });
      const madeRecord = made.status < 300 ? peer.records("create", made.body)[0] : undefined;
      const pick = (record: Omit<User, "id"> | User | undefined) =>
        record && { name: record.name, email: record.email, phone: record.phone, bio: record.bio };
      const madeSame = madeRecord !== undefined && isDeepStrictEqual(pick(madeRecord), pick(createdByGenerated.data));
      checks.push({
        server: peer.name,
        endpoint: "create",
        same: madeSame,
        ...(!madeSame && { detail: `${made.status} ${JSON.stringify(made.body).slice(0, 300)}` }),
      });
    }
    for (const check of checks) {
      if (!check.same)
        log(`WARNING: ${check.server} ${check.endpoint} does not hold the same records: ${check.detail}`);
    }

    const names = ["generated", ...peers.map((peer) => peer.name)];
    const targets = [
      { name: "generated", base: generated.base, pid: generated.pid, paths: generatedPaths },
      ...peers.map((peer) => ({ name: peer.name, base: peer.base, pid: peer.pid, paths: peer.paths })),
    ];
    const createBody = ENDPOINTS.find((e) => e.name === "create")!.body!;
    const endpoints: PeerResult["endpoints"] = [];
    for (const name of PEER_ENDPOINTS) {
      const endpointOf = (target: (typeof targets)[number]): Endpoint => ({
        name,
        method: name === "create" ? "POST" : "GET",
        path: target.paths[name],
        ...(name === "create" && { body: createBody }),
      });
      const rounds: Record<string, Round[]> = Object.fromEntries(names.map((n) => [n, []]));
      for (const target of targets)
        await load(target, endpointOf(target), settings.warmup, `peers-${target.name.split(" ")[0]}-warmup`);
      for (let round = 1; round <= settings.rounds; round++) {
        for (const target of targets) {
          rounds[target.name]!.push(
            await measureRound(
              { kind: target.name.split(" ")[0]!, base: target.base, pid: target.pid },
              endpointOf(target),
              round,
            ),
          );
        }
      }
      const median_ = Object.fromEntries(names.map((n) => [n, medianBy(rounds[n]!, (r) => r.rps)]));
      const cpu = (n: string) => median(rounds[n]!.map((r) => r.cpuUsPerRequest));
      const peerNames = names.slice(1);
      endpoints.push({
        endpoint: name,
        rounds,
        median: median_,
        ratio: Object.fromEntries(peerNames.map((n) => [n, median_[n]!.rps / median_.generated!.rps])),
        pairedRatio: Object.fromEntries(
          peerNames.map((n) => [n, median(rounds[n]!.map((r, i) => r.rps / rounds.generated![i]!.rps))]),
        ),
        cpuRatio: Object.fromEntries(peerNames.map((n) => [n, cpu("generated") / cpu(n)])),
      });
    }
    return {
      servers: [
        { name: "generated", access: "X-API-SIGNATURE checked on every request", paths: generatedPaths },
        ...peers.map((peer) => ({ name: peer.name, access: peer.access, paths: peer.paths })),
      ],
      checks,
      installedNow,
      endpoints,
    };
  } finally {
    for (const peer of peers) await peer.stop();
    await generated.stop();
    running.splice(running.indexOf(generated), 1);
  }
}

function renderPeers(peers: PeerResult): string[] {
  const names = peers.servers.slice(1).map((server) => server.name);
  const lines = [
    ``,
    `### Peers (same run, same machine): ${names.join(", ")}`,
    ``,
    `The same 100 users (the bench's seed, read from the generated server's list) in each peer; one process of each ` +
      `for all rounds, loaded by the same autocannon (${settings.connections} connections), per endpoint a ${settings.warmup} s ` +
      `warm-up of each, then ${settings.rounds} rounds of generated, ${names.join(", ")}, ${settings.duration} s each; ` +
      `show, then list, then create (list answers the 100 seeded users). Ratios are peer ÷ generated (below 1: the generated ` +
      `server is ahead).`,
    ``,
    `| endpoint | generated req/s | p50 ms | CPU µs/req | ${names.map((n) => `${n} req/s | p50 ms | CPU µs/req | ${n} ÷ generated | paired rounds`).join(" | ")} |`,
    `|---|--:|--:|--:|${names.map(() => "--:|--:|--:|--:|--:").join("|")}|`,
    ...peers.endpoints.map((result) => {
      const g = result.median.generated!;
      return (
        `| ${result.endpoint} | ${fmt(g.rps, 0)} | ${fmt(g.p50, 2)} | ${fmt(g.cpuUsPerRequest, 0)} | ` +
        names
          .map((n) => {
            const m = result.median[n]!;
            return `${fmt(m.rps, 0)} | ${fmt(m.p50, 2)} | ${fmt(m.cpuUsPerRequest, 0)} | **${fmt(result.ratio[n]!, 2)}** | ${fmt(result.pairedRatio[n]!, 2)}`;
          })
          .join(" | ") +
        ` |`
      );
    }),
    ``,
    `Every round (req/s): ` +
      peers.endpoints
        .map(
          (result) =>
            `${result.endpoint} ` +
            Object.entries(result.rounds)
              .map(([n, rounds]) => `${n} ${rounds.map((r) => fmt(r.rps, 0)).join("/")}`)
              .join(", "),
        )
        .join("; ") +
      `.`,
    ``,
    ...peers.servers.map(
      (server) =>
        `- ${server.name}: access ${server.access}; show \`${server.paths.show}\`, list \`${server.paths.list}\`, create \`POST ${server.paths.create}\`.`,
    ),
    ``,
    peers.checks.every((check) => check.same)
      ? `Checked first: each peer's show and list held the same records as the generated server's (every field, ids aside), and its create stored the fields sent.`
      : `Checks: **records differ**: ${peers.checks
          .filter((check) => !check.same)
          .map((check) => `${check.server} ${check.endpoint}: ${check.detail}`)
          .join("; ")}`,
  ];
  const failures = peers.endpoints.flatMap((result) =>
    Object.entries(result.rounds).flatMap(([n, rounds]) =>
      rounds
        .filter((r) => r.non2xx + r.errors + r.timeouts > 0)
        .map(
          (r) =>
            `${result.endpoint} ${n} round ${r.round}: ${r.non2xx} non-2xx (first ${r.firstBadStatus}), ${r.errors} errors, ${r.timeouts} timeouts`,
        ),
    ),
  );
  if (failures.length > 0) lines.push(``, `Peer rounds with failures: ${failures.join("; ")}.`);
  return lines;
}

/** `npm run bench -- --pg`: the PostgreSQL part alone (bench/pg.ts). */
async function pgOnly() {
  log(
    `PostgreSQL only: ${settings.rounds} rounds × ${settings.duration} s, ${settings.connections} connections, ${settings.warmup} s warm-up`,
  );
  const begun = performance.now();
  const running: Server[] = [];
  const postgres = await pgBenchmark(measureRound, running);
  console.log([`## PostgreSQL (\`npm run bench -- --pg\`)`, ...renderPg(postgres)].join("\n"));
  const json = join(REPO, ".tmp", "bench-pg-results.json");
  await writeFile(
    json,
    JSON.stringify({ settings, postgres, totalSeconds: (performance.now() - begun) / 1000 }, null, 2),
  );
  log(`raw results: ${json}`);
}

/** `npm run bench -- --keys`: the keys part alone (bench/keys.ts). */
async function keysOnly() {
  log(
    `keys only: ${settings.rounds} rounds × ${settings.duration} s, ${settings.connections} connections, ${settings.warmup} s warm-up`,
  );
  const begun = performance.now();
  const running: Server[] = [];
  const keys = await keysBenchmark(measureRound, running);
  console.log([`## Keys (\`npm run bench -- --keys\`)`, ...renderKeys(keys)].join("\n"));
  const json = join(REPO, ".tmp", "bench-keys-results.json");
  await writeFile(json, JSON.stringify({ settings, keys, totalSeconds: (performance.now() - begun) / 1000 }, null, 2));
  log(`raw results: ${json}`);
}

if (process.argv.includes("--pg")) {
  await pgOnly();
} else if (process.argv.includes("--keys")) {
  await keysOnly();
} else {
  await main();
}
