// `npm run bench`: the generated server of examples/blog.yaml against a hand-written ceiling
// (bench/ceiling.ts) on the same data, plus generation and start-up times. See bench/RESULTS.md.
//
//   1. generates examples/blog.yaml with the CLI into .tmp/bench-*/server, migrates it with the
//      server's own `npm run migrate` and seeds it (100 users, 10 categories, 100 posts); builds it
//      (`npm run build`) for the compiled start-up;
//   2. times `tablegen generate` on a synthetic 200-table manifest (bench/synthetic.ts);
//   3. starts each server BENCH_STARTS times: spawn → first 200 answer of a list request, and the
//      RSS right then; also the generated server compiled (`node dist/server.js`, as
//      `npm run start:prod` runs it), for start-up and memory only;
//   4. BENCH_ROUNDS rounds; each starts a fresh pair of server processes, each on its own fresh copy
//      of the seeded database (creates do not interfere, list always answers the 100 seeded users,
//      and the rounds sample the variation between processes), and per endpoint (show, list, custom
//      query, create) warms each up for BENCH_WARMUP seconds, then loads generated, then ceiling, for
//      BENCH_DURATION seconds, each load run by autocannon in a process of its own (bench/load.ts).
//      In the first round both servers must answer the benchmarked requests identically (parity).
//      Reported: the median round, with the server's CPU time per request and RSS from /proc.
//
// Environment: BENCH_DURATION (5 s), BENCH_ROUNDS (3), BENCH_WARMUP (1.5 s), BENCH_CONNECTIONS (10),
// BENCH_STARTS (5), BENCH_GENERATIONS (3), BENCH_ENDPOINTS (show,list,query,create), BENCH_KEEP=1
// (keep .tmp/bench-*). `npm run bench -- --profile` runs bench/profile.ts instead. Everything
// listens on 127.0.0.1 only. Raw results: .tmp/bench-results.json.
import { availableParallelism, cpus, release, totalmem } from "node:os";
import { readFile, writeFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  copyDatabase,
  ENDPOINTS,
  KEY,
  load,
  median,
  medianBy,
  memory,
  migrate,
  REPO,
  removeWorkDir,
  seed,
  send,
  settings,
  startServer,
  tablegenGenerate,
  buildServer,
  workDir,
  type Endpoint,
  type Server,
  type ServerKind,
} from "./lib.ts";
import type { LoadResult } from "./load.ts";
import { generationBenchmark, type GenerationTimes } from "./synthetic.ts";

const KINDS: ServerKind[] = ["generated", "ceiling"];
const START_MODES = ["generated", "compiled", "ceiling"] as const;
type Starts = Record<(typeof START_MODES)[number], { ms: number; rssMb: number }[]>;

/** Targets of the issue (a benchmark, not tests). */
const TARGETS = {
  ratio: { show: 0.8, list: 0.8, create: 0.8 } as Record<string, number | undefined>,
  generationMs: 2000,
  startupMs: 500,
  idleRssMb: 100,
};

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
  /** CPU stolen by the hypervisor during the round, in cores. */
  stealCores: number;
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
  quietRounds: Record<ServerKind, number>;
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
    const clusterScript = scripts.cluster;
    log("building the generated server (npm run build) for the compiled start-up");
    let build: { ms?: number; error?: string };
    try {
      build = { ms: await buildServer(serverDir) };
    } catch (error) {
      build = { error: (error as Error).message.split("\n").slice(0, 5).join(" ") };
      log(`WARNING: npm run build failed, the compiled start-up is not measured: ${build.error}`);
    }
    for (const kind of KINDS) copyDatabase(join(serverDir, "seed.db"), join(serverDir, `${kind}.db`));

    // 2. Generation of 200 tables.
    log("timing tablegen generate on a synthetic 200-table manifest");
    const generation = await generationBenchmark();

    // 3. Start-up and idle RSS.
    log(`starting each server ${settings.starts} times`);
    const starts: Starts = { generated: [], compiled: [], ceiling: [] };
    for (let i = 0; i < settings.starts; i++) {
      for (const mode of START_MODES) {
        if (mode === "compiled" && build.ms === undefined) continue;
        const kind = mode === "compiled" ? "generated" : mode;
        const server = await startServer({
          kind,
          serverDir,
          databaseUrl: databaseUrl(kind),
          compiled: mode === "compiled",
        });
        starts[mode].push({ ms: server.startupMs, rssMb: server.idleRssMb });
        await server.stop();
      }
    }

    // 4. Load. Each round starts a fresh pair of server processes on fresh copies of the seeded
    // database (so a round samples the variation between processes too, and list always answers
    // the 100 seeded users); per endpoint, a warm-up of each, then generated, ceiling.
    const only = process.env.BENCH_ENDPOINTS?.split(",");
    const endpoints = ENDPOINTS.filter((entry) => !only || only.includes(entry.name));
    const rounds = new Map(
      endpoints.map((endpoint) => [endpoint.name, { generated: [], ceiling: [] } as Record<ServerKind, Round[]>]),
    );
    let parity: Parity[] = [];
    let afterLoad = {} as Record<ServerKind, { rssMb: number; peakMb: number }>;
    for (let round = 1; round <= settings.rounds; round++) {
      const servers = {} as Record<ServerKind, Server>;
      for (const kind of KINDS) {
        const database = `${kind}-${round}.db`;
        copyDatabase(join(serverDir, "seed.db"), join(serverDir, database));
        servers[kind] = await startServer({ kind, serverDir, databaseUrl: `file:./${database}` });
        running.push(servers[kind]);
      }
      // The same answers from both, once.
      if (round === 1)
        parity = await compareAnswers(
          servers,
          endpoints.filter((endpoint) => endpoint.method === "GET"),
        );
      for (const endpoint of endpoints) {
        if (round === 1 && endpoint.method === "POST") parity.push(...(await compareCreates(servers, endpoint)));
        for (const kind of KINDS) await load(servers[kind], endpoint, settings.warmup, `${kind}-${round}-warmup`);
        for (const kind of KINDS)
          rounds.get(endpoint.name)![kind].push(await measureRound(servers[kind], endpoint, round));
      }
      afterLoad = Object.fromEntries(KINDS.map((kind) => [kind, memory(servers[kind].pid)])) as typeof afterLoad;
      for (const server of running) await server.stop();
      running.length = 0;
    }
    const results = endpoints.map((endpoint) => summariseRounds(endpoint.name, rounds.get(endpoint.name)!));

    const totalSeconds = (performance.now() - begun) / 1000;
    const report = render({
      machine,
      blogGenerateMs,
      build,
      clusterScript,
      generation,
      starts,
      parity,
      results,
      afterLoad,
      totalSeconds,
    });
    console.log(report);
    const json = join(REPO, ".tmp", "bench-results.json");
    await writeFile(
      json,
      JSON.stringify(
        { machine, settings, blogGenerateMs, build, generation, starts, parity, results, afterLoad, totalSeconds },
        null,
        2,
      ),
    );
    log(`raw results: ${json}`);
  } finally {
    for (const server of running) await server.stop().catch(() => {});
    await removeWorkDir(work);
  }
}

/** One measured round of one server on one endpoint. */
async function measureRound(server: Server, endpoint: Endpoint, round: number): Promise<Round> {
  const result = await load(server, endpoint, settings.duration, `${server.kind}-${round}`);
  const cores = (ms: number) => ms / 1000 / result.duration;
  const entry: Round = {
    ...result,
    round,
    cpuUsPerRequest: (result.serverCpuMs * 1000) / Math.max(1, result.responses),
    cores: cores(result.serverCpuMs),
    loadCores: cores(result.loadCpuMs),
    foreignCores: Math.max(0, cores(result.machineBusyMs - result.serverCpuMs - result.loadCpuMs)),
    stealCores: cores(result.stealMs),
    rssMb: memory(server.pid).rssMb,
  };
  log(
    `${endpoint.name} round ${round} ${server.kind.padEnd(9)} ${fmt(entry.rps, 0).padStart(6)} req/s  p50 ${fmt(entry.p50, 2)} ms  ` +
      `p99 ${fmt(entry.p99, 2)} ms  ${fmt(entry.cpuUsPerRequest, 0)} µs CPU/req  cores: server ${fmt(entry.cores, 2)} ` +
      `load ${fmt(entry.loadCores, 2)} other ${fmt(entry.foreignCores, 2)} steal ${fmt(entry.stealCores, 2)}` +
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
  };
  const cpuCost = (kind: ServerKind) => median(rounds[kind].map((round) => round.cpuUsPerRequest));
  const best = (kind: ServerKind) => Math.max(...rounds[kind].map((round) => round.rps));
  const quiet = (kind: ServerKind) => rounds[kind].filter((round) => !disturbed(round)).map((round) => round.rps);
  const [quietGenerated, quietCeiling] = [quiet("generated"), quiet("ceiling")];
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
    quietRounds: { generated: quietGenerated.length, ceiling: quietCeiling.length },
  };
}

// ---- parity: the ceiling must answer what the generated server answers ---------------------------

interface Parity {
  request: string;
  identical: boolean;
  generated?: string;
  ceiling?: string;
}

async function compareAnswers(servers: Record<ServerKind, Server>, endpoints: Endpoint[]): Promise<Parity[]> {
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
    const [generated, ceiling] = await Promise.all(KINDS.map((kind) => send(servers[kind].base + path, { headers })));
    parity.push(same(label, generated!, ceiling!));
  }
  return parity;
}

async function compareCreates(servers: Record<ServerKind, Server>, endpoint: Endpoint): Promise<Parity[]> {
  const body = JSON.stringify({
    name: "Parity",
    email: "parity@example.com",
    phone: "+1 555 0199",
    created_at: "2024-05-06T07:08:09Z",
  });
  const answers = [];
  for (const kind of KINDS) {
    answers.push(
      await send(servers[kind].base + endpoint.path, {
        method: "POST",
        headers: { "x-api-signature": KEY, "content-type": "application/json" },
        body,
      }),
    );
  }
  return [same(`POST ${endpoint.path}`, answers[0]!, answers[1]!)];
}

function same(
  label: string,
  generated: { status: number; body: string },
  ceiling: { status: number; body: string },
): Parity {
  const parse = (text: string) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  const identical =
    generated.status === ceiling.status && isDeepStrictEqual(parse(generated.body), parse(ceiling.body));
  if (identical) return { request: label, identical };
  log(`WARNING: the servers answer ${label} differently`);
  return {
    request: label,
    identical,
    generated: `${generated.status} ${generated.body.slice(0, 300)}`,
    ceiling: `${ceiling.status} ${ceiling.body.slice(0, 300)}`,
  };
}

// ---- report --------------------------------------------------------------------------------------

const fmt = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "–";
const met = (ok: boolean) => (ok ? "met" : "**not met**");

function render(data: {
  machine: { node: string; cpus: number; cpuModel: string; memoryGb: number; kernel: string };
  blogGenerateMs: number;
  generation: GenerationTimes;
  build: { ms?: number; error?: string };
  clusterScript?: string;
  starts: Starts;
  parity: Parity[];
  results: EndpointResult[];
  afterLoad: Record<ServerKind, { rssMb: number; peakMb: number }>;
  totalSeconds: number;
}): string {
  const { machine, generation, starts, parity, results, afterLoad } = data;
  const lines: string[] = [];
  lines.push(
    `## Results`,
    ``,
    `Node ${machine.node}, ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGb} GB, Linux ${machine.kernel}. ` +
      `autocannon in its own process, ${settings.connections} connections; ${settings.rounds} rounds, each on a fresh pair of server processes ` +
      `and database copies, with per endpoint a ${settings.warmup} s warm-up of each server, then ${settings.duration} s of generated, ` +
      `then ${settings.duration} s of ceiling; the median round by req/s. Run took ${fmt(data.totalSeconds, 0)} s.`,
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
  lines.push(
    ``,
    `Every round (req/s, generated | ceiling): ` +
      results
        .map(
          (result) =>
            `${result.endpoint} ${result.rounds.generated.map((round) => fmt(round.rps, 0)).join("/")} | ` +
            result.rounds.ceiling.map((round) => fmt(round.rps, 0)).join("/"),
        )
        .join("; ") +
      `. CPU µs/req is the server process's user+system time over the round divided by its 2xx answers (the ratio CPU/req is ` +
      `ceiling ÷ generated, medians over the rounds: the cost per request, which a saturated load generator does not blur); ` +
      `RSS is VmRSS after the round.`,
  );
  const rounds = results.flatMap((result) => KINDS.flatMap((kind) => result.rounds[kind]));
  const noisy = results.flatMap((result) =>
    KINDS.flatMap((kind) =>
      result.rounds[kind]
        .filter(disturbed)
        .map(
          (round) =>
            `${result.endpoint} ${kind} ${round.round} (${fmt(round.foreignCores, 2)}/${fmt(round.stealCores, 2)})`,
        ),
    ),
  );
  lines.push(
    ``,
    `CPU during the rounds, in cores of ${data.machine.cpus}: load generator ${fmt(Math.min(...rounds.map((r) => r.loadCores)), 2)}–${fmt(Math.max(...rounds.map((r) => r.loadCores)), 2)}, ` +
      `hypervisor steal up to ${fmt(Math.max(...rounds.map((r) => r.stealCores)), 2)}, other processes up to ${fmt(Math.max(...rounds.map((r) => r.foreignCores)), 2)}. ` +
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
    KINDS.flatMap((kind) =>
      result.rounds[kind]
        .filter((round) => round.non2xx + round.errors + round.timeouts > 0)
        .map(
          (round) =>
            `${result.endpoint} ${kind} round ${round.round}: ${round.non2xx} non-2xx, ${round.errors} errors, ${round.timeouts} timeouts`,
        ),
    ),
  );
  lines.push(``, bad.length === 0 ? `Every response under load was 2xx.` : `Rounds with failures: ${bad.join("; ")}.`);

  const startup = (mode: keyof Starts) => {
    const runs = starts[mode];
    if (runs.length === 0) return undefined;
    const warm = runs.length > 1 ? runs.slice(1) : runs;
    return { first: runs[0]!.ms, median: median(warm.map((run) => run.ms)), rss: median(runs.map((run) => run.rssMb)) };
  };
  const [gs, ps, cs] = [startup("generated")!, startup("compiled"), startup("ceiling")!];
  const compiled = (value: (entry: NonNullable<typeof ps>) => string) =>
    ps ? value(ps) : data.build.error ? "build failed" : "–";
  const genFresh = median(generation.cliFresh);
  lines.push(
    ``,
    `### Start-up, memory, generation`,
    ``,
    `| measure | generated (\`npm start\`: node --import tsx) | generated compiled (\`npm run start:prod\`) | ceiling (node --import tsx) | target | |`,
    `|---|--:|--:|--:|--:|---|`,
    `| start-up, spawn → first list answer, median of ${Math.max(1, settings.starts - 1)} (ms) | ${fmt(gs.median, 0)} | ${compiled((p) => fmt(p.median, 0))} | ${fmt(cs.median, 0)} | < ${TARGETS.startupMs} | ${met(gs.median < TARGETS.startupMs)} (\`npm start\`)${ps ? `, ${met(ps.median < TARGETS.startupMs)} (compiled)` : ""} |`,
    `| start-up, the first start (cold tsx cache for the generated files) (ms) | ${fmt(gs.first, 0)} | ${compiled((p) => fmt(p.first, 0))} | ${fmt(cs.first, 0)} | | |`,
    `| idle RSS right after start, median (MB) | ${fmt(gs.rss, 0)} | ${compiled((p) => fmt(p.rss, 0))} | ${fmt(cs.rss, 0)} | < ${TARGETS.idleRssMb} | ${met(gs.rss < TARGETS.idleRssMb)} (\`npm start\`)${ps ? `, ${met(ps.rss < TARGETS.idleRssMb)} (compiled)` : ""} |`,
    `| RSS after all the load / peak RSS (MB) | ${fmt(afterLoad.generated.rssMb, 0)} / ${fmt(afterLoad.generated.peakMb, 0)} | | ${fmt(afterLoad.ceiling.rssMb, 0)} / ${fmt(afterLoad.ceiling.peakMb, 0)} | | |`,
    ...(data.build.ms !== undefined
      ? [``, `\`npm run build\` of the generated server took ${fmt(data.build.ms, 0)} ms.`]
      : []),
    ``,
    `| generation (${generation.tables} tables, ${generation.files} files) | ms | target | |`,
    `|---|--:|--:|---|`,
    `| \`node bin/tablegen.js generate\` into a fresh directory, median of ${generation.cliFresh.length} (${generation.cliFresh.map((ms) => fmt(ms, 0)).join(", ")}) | ${fmt(genFresh, 0)} | < ${TARGETS.generationMs} | ${met(genFresh < TARGETS.generationMs)} |`,
    `| the same over its own output (nothing written, no migration), median | ${fmt(median(generation.cliUnchanged), 0)} | | |`,
    `| \`node bin/tablegen.js --version\` (CLI start-up alone), median | ${fmt(median(generation.cliStartup), 0)} | | |`,
    `| in process: read + validate + model (first / warm median) | ${fmt(generation.readFirst, 0)} / ${fmt(generation.read, 0)} | | |`,
    `| in process: emit, templates → in-memory tree (first / warm median) | ${fmt(generation.emitFirst, 0)} / ${fmt(generation.emit, 0)} | | |`,
    `| in process: write the tree to a fresh directory | ${fmt(generation.write, 0)} | | |`,
    `| in process: first migration (\`prisma migrate diff\` process) | ${fmt(generation.migration, 0)} | | |`,
    `| for scale: \`generate\` of examples/blog.yaml (4 tables) into a fresh directory | ${fmt(data.blogGenerateMs, 0)} | | |`,
    ``,
    data.clusterScript
      ? `Cluster start mode: not measured. The generated server now has one (\`npm run cluster\`: \`${data.clusterScript}\`); this harness does not run it yet.`
      : `Cluster start mode: not measured, the generated server has no cluster mode.`,
    ``,
    parity.every((entry) => entry.identical)
      ? `Parity: both servers gave identical answers (status and JSON body) to ${parity.length} checks: ${parity.map((entry) => entry.request).join(", ")}.`
      : `Parity: **answers differ**: ${parity
          .filter((entry) => !entry.identical)
          .map((entry) => `${entry.request}: generated ${entry.generated} / ceiling ${entry.ceiling}`)
          .join("; ")}`,
  );
  return lines.join("\n");
}

if (process.argv.includes("--profile")) {
  await import("./profile.ts");
} else {
  await main();
}
