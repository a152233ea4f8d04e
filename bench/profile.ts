// `npm run bench -- --profile` (or `npx tsx bench/profile.ts`): where the generated server spends
// its CPU compared with the ceiling. For each endpoint and each server, a fresh server process runs
// under the profiler, started as `npm start` starts it, without npm
// (`node --cpu-prof run.js server`; the ceiling, transpiled by esbuild the same
// way, `node --cpu-prof --enable-source-maps ceiling.mjs`), gets a warm-up and then
// PROFILE_DURATION seconds of load; only the samples taken during that window count (profile
// timestamps and process.hrtime share the monotonic clock). Self time is summed by function and by
// package, and divided by the requests answered in the window: microseconds of CPU per request,
// comparable between servers. Start-up is profiled the same way, from spawn to the first answer,
// for `npm start`'s node process, the tsc-compiled server (`npm run start:prod`) and the ceiling;
// and `tablegen generate` of the synthetic 200-table manifest (bench/synthetic.ts), whose
// `prisma migrate diff` child is not profiled (it shows as the main thread waiting).
// PROFILE_AGAINST=lean compares with the lean ceiling (bench/lean.ts) instead of bench/ceiling.ts.
// PROFILE_DATABASE=postgresql profiles the example generated for PostgreSQL against the lean pg
// ceiling (bench/lean-pg.ts) on a throwaway PostgreSQL (bench/pg.ts), endpoints only.
// PROFILE_ONLY=generation,startup,show,list,query,create picks sections; PROFILE_DURATION (8 s),
// PROFILE_TOP (15), PROFILE_STARTS (3). The .cpuprofile files are kept in .tmp/bench-profiles/ for
// Chrome DevTools. Positions in them are those of the JavaScript that ran (dist/*.js, ceiling.mjs):
// --cpu-prof does not apply source maps.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { stringify } from "yaml";
import { setUpPostgres } from "./pg.ts";
import { syntheticManifest } from "./synthetic.ts";
import { join } from "node:path";
import {
  copyDatabase,
  ENDPOINTS,
  load,
  migrate,
  REPO,
  removeWorkDir,
  TABLEGEN,
  buildServer,
  seed,
  transpileCeiling,
  transpileServer,
  settings,
  startServer,
  tablegenGenerate,
  workDir,
  type Endpoint,
  type ServerKind,
} from "./lib.ts";

const DURATION = Number(process.env.PROFILE_DURATION || 8);
const TOP = Number(process.env.PROFILE_TOP || 15);
/** PROFILE_AGAINST=lean profiles the lean ceiling (bench/lean.ts) instead of bench/ceiling.ts. */
const POSTGRES = process.env.PROFILE_DATABASE === "postgresql";
const AGAINST: "ceiling" | "lean" | "lean-pg" = POSTGRES
  ? "lean-pg"
  : process.env.PROFILE_AGAINST === "lean"
    ? "lean"
    : "ceiling";
const KINDS: ServerKind[] = ["generated", AGAINST];

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface Summary {
  requests: number;
  /** Self time per function key, µs, in the window. */
  functions: Map<string, number>;
  /** Self time per package/category, µs, in the window. */
  packages: Map<string, number>;
  /** Busy (not idle) sampled time, µs. */
  busy: number;
}

/** The package (or category) a frame belongs to. */
function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === "") {
    if (functionName === "(garbage collector)") return "(garbage collector)";
    if (functionName === "(program)") return "(program: V8/native, unattributed)";
    if (functionName === "(idle)") return "(idle)";
    return "(native or eval'd code: builtins, better-sqlite3 methods, compiled validators/serializers)";
  }
  if (url.startsWith("node:")) return "node core";
  const modules = url.lastIndexOf("/node_modules/");
  if (modules !== -1) {
    const rest = url.slice(modules + "/node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.includes("/server/src/") || url.includes("/server/dist/")) return "generated server (src/ or dist/)";
  if (url.startsWith(`file://${REPO}dist/`)) return "tablegen (compiled dist/)";
  if (url.startsWith(`file://${REPO}src/`)) return "tablegen (src/, through tsx)";
  if (url.endsWith("/ceiling.mjs")) return "ceiling (bench/ceiling.ts, transpiled)";
  if (url.endsWith("/lean.mjs")) return "lean ceiling (bench/lean.ts, transpiled)";
  if (url.endsWith("/lean-pg.mjs")) return "lean pg ceiling (bench/lean-pg.ts, transpiled)";
  return url;
}

function shortUrl(url: string): string {
  if (url === "") return "";
  let short = url.replace(/^file:\/\//, "");
  const modules = short.lastIndexOf("/node_modules/");
  if (modules !== -1) short = short.slice(modules + "/node_modules/".length);
  else if (/\/server\/(src|dist)\//.test(short)) short = short.slice(short.lastIndexOf("/server/") + "/server/".length);
  else if (short.startsWith(REPO)) short = short.slice(REPO.length);
  return short;
}

function summarise(profile: CpuProfile, from: number, to: number, requests: number): Summary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    if (time < from || time > to) continue;
    // A sample stands for the time until the next one.
    const weight = profile.timeDeltas[i + 1] ?? 0;
    const frame = frames.get(profile.samples[i]!)!;
    const pkg = packageOf(frame);
    if (pkg === "(idle)") continue;
    busy += weight;
    packages.set(pkg, (packages.get(pkg) ?? 0) + weight);
    // Line numbers of .ts files (the tablegen CLI when it runs its sources through tsx) are those
    // of tsx's transpiled code: left out. Those of .js/.mjs files are of the JavaScript that ran (dist/, ceiling.mjs).
    const line = frame.url.endsWith(".ts") ? "" : `:${frame.lineNumber + 1}`;
    const where = frame.url ? ` ${shortUrl(frame.url)}${line}` : "";
    const key = `${frame.functionName || "(anonymous)"}${where}`;
    functions.set(key, (functions.get(key) ?? 0) + weight);
  }
  return { requests, functions, packages, busy };
}

const perRequest = (summary: Summary | undefined, key: string, map: "functions" | "packages") =>
  summary ? (summary[map].get(key) ?? 0) / Math.max(1, summary.requests) : 0;
const us = (value: number) => value.toFixed(value < 10 ? 1 : 0);

/**
 * The profiles a run wrote into its own directory: --cpu-prof writes one per thread, named
 * CPU.<date>.<time>.<pid>.<thread>.<n>. The servers run plain JavaScript and have only the main
 * thread. The tablegen CLI runs its compiled dist/ when that is current (bin/tablegen.js), its
 * sources through tsx otherwise, whose module hooks run on a loader thread of their own.
 */
async function readProfiles(dir: string): Promise<{ main: CpuProfile; others: CpuProfile[] }> {
  const files = (await readdir(dir)).filter((file) => file.endsWith(".cpuprofile"));
  const main = files.find((file) => file.split(".")[4] === "0");
  if (!main) throw new Error(`no main-thread profile in ${dir}: ${files.join(", ")}`);
  const read = async (file: string) => JSON.parse(await readFile(join(dir, file), "utf8")) as CpuProfile;
  return { main: await read(main), others: await Promise.all(files.filter((file) => file !== main).map(read)) };
}

function merge(summaries: Summary[]): Summary {
  const total: Summary = { requests: 0, functions: new Map(), packages: new Map(), busy: 0 };
  for (const summary of summaries) {
    total.requests += summary.requests;
    total.busy += summary.busy;
    for (const key of ["functions", "packages"] as const) {
      for (const [name, value] of summary[key]) total[key].set(name, (total[key].get(name) ?? 0) + value);
    }
  }
  return total;
}

/** A fresh copy of the seeded database for a profiled server; its DATABASE_URL. */
type Copy = (kind: ServerKind, endpoint: Endpoint) => Promise<string>;

async function profileOne(
  kind: ServerKind,
  endpoint: Endpoint,
  serverDir: string,
  profileDir: string,
  copy: Copy,
): Promise<Summary> {
  const dir = join(profileDir, `${kind}-${endpoint.name}`);
  const server = await startServer({
    kind,
    serverDir,
    databaseUrl: await copy(kind, endpoint),
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir],
  });
  try {
    await load(server, endpoint, settings.warmup, `${kind}-profile-warmup`);
    const from = Number(process.hrtime.bigint() / 1000n);
    const result = await load(server, endpoint, DURATION, `${kind}-profile`);
    const to = Number(process.hrtime.bigint() / 1000n);
    await server.stop();
    const { main: profile } = await readProfiles(dir);
    console.error(`[profile] ${endpoint.name} ${kind}: ${Math.round(result.rps)} req/s under the profiler`);
    return summarise(profile, from, to, result.responses);
  } finally {
    await server.stop();
  }
}

/** generated: `npm start`'s node process; compiled: tsc's output (`npm run start:prod`). */
const START_MODES = ["generated", "compiled", "ceiling"] as const;
type StartMode = (typeof START_MODES)[number];
const STARTS = Number(process.env.PROFILE_STARTS || 3);

/** Start-up under the profiler, from spawn to the first answer; `requests` counts the starts. */
async function profileStartup(mode: StartMode, serverDir: string, profileDir: string): Promise<Summary> {
  const mains: Summary[] = [];
  for (let i = 1; i <= STARTS; i++) {
    const dir = join(profileDir, `startup-${mode}-${i}`);
    const server = await startServer({
      kind: mode === "compiled" ? "generated" : mode,
      serverDir,
      databaseUrl: "file:./seed.db",
      compiled: mode === "compiled",
      nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir],
    });
    await server.stop();
    const { main } = await readProfiles(dir);
    mains.push(summarise(main, server.spawnedAtUs, server.readyAtUs, 1));
    console.error(`[profile] start-up ${mode} ${i}: ${Math.round(server.startupMs)} ms under the profiler`);
  }
  return merge(mains);
}

function renderStartup(results: Partial<Record<StartMode, Summary>>): string {
  const modes = START_MODES.filter((mode) => results[mode]);
  const ms = (summary: Summary, value: number) => (value / 1000 / summary.requests).toFixed(0);
  const lines = [
    `### start-up: spawn → first list answer (main thread, mean of ${STARTS} starts)`,
    ``,
    `Busy main-thread time per start: ${modes.map((mode) => `${mode} ${ms(results[mode]!, results[mode]!.busy)} ms`).join(", ")} ` +
      `(generated: \`node run.js server\`, as \`npm start\` runs it, dist/ up to date; compiled: ` +
      `tsc's output, \`node dist/server.js\`; ceiling: esbuild's output, \`node --enable-source-maps\`).`,
    ``,
    `| package / category | ${modes.map((mode) => `${mode} ms`).join(" | ")} |`,
    `|---|${modes.map(() => "--:").join("|")}|`,
  ];
  const keys = [...new Set(modes.flatMap((mode) => [...results[mode]!.packages.keys()]))]
    .map((key) => ({ key, values: modes.map((mode) => (results[mode]!.packages.get(key) ?? 0) / 1000 / STARTS) }))
    .sort((a, b) => b.values[0]! - a.values[0]!);
  for (const { key, values } of keys.filter((entry) => Math.max(...entry.values) >= 3)) {
    lines.push(`| ${key} | ${values.map((value) => value.toFixed(0)).join(" | ")} |`);
  }
  const generated = results.generated!;
  lines.push(
    ``,
    `Top ${TOP} functions of the generated server's start-up (\`npm start\`'s node process) by self time:`,
    ``,
    `| function | ms |`,
    `|---|--:|`,
  );
  for (const [key, value] of [...generated.functions.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    lines.push(`| \`${key}\` | ${(value / 1000 / STARTS).toFixed(0)} |`);
  }
  return lines.join("\n");
}

/** `node --cpu-prof bin/tablegen.js generate` of the synthetic manifest into a fresh directory. */
async function profileGeneration(profileDir: string): Promise<string> {
  const dir = await workDir("bench-profile-generation");
  try {
    const manifest = join(dir, "tablegen.yaml");
    await writeFile(manifest, stringify(syntheticManifest(200)));
    const profiles = join(profileDir, "generation");
    const start = performance.now();
    const from = Number(process.hrtime.bigint() / 1000n);
    await execa(
      process.execPath,
      [
        "--cpu-prof",
        "--cpu-prof-dir",
        profiles,
        TABLEGEN,
        "generate",
        "--manifest",
        manifest,
        "--out",
        join(dir, "out"),
      ],
      { cwd: REPO, timeout: 120_000 },
    );
    const to = Number(process.hrtime.bigint() / 1000n);
    const wall = performance.now() - start;
    const { main, others } = await readProfiles(profiles);
    const mainSummary = summarise(main, from, to, 1);
    const threads = others.map((other) => summarise(other, from, to, 1));
    // Every thread's samples together: prettier runs on the format pool's threads (src/cli/format-pool.ts).
    const summary = merge([mainSummary, ...threads]);
    const spanned = (main.startTime + main.timeDeltas.reduce((a, b) => a + b, 0) - main.startTime) / 1000;
    const lines = [
      `### generation: \`node bin/tablegen.js generate\` of the synthetic 200-table manifest, fresh directory`,
      ``,
      `Wall ${wall.toFixed(0)} ms under the profiler; the main thread was profiled for ${spanned.toFixed(0)} ms, busy ${(mainSummary.busy / 1000).toFixed(0)} ms ` +
        `(the rest is waiting for the format threads)` +
        (others.length > 0
          ? `; ${others.length} other thread(s) (the format pool's; under tsx also its loader thread) were busy ` +
            `${threads.map((thread) => (thread.busy / 1000).toFixed(0)).join(", ")} ms. The tables sum every thread.`
          : `.`),
      ``,
      `| package / category | ms |`,
      `|---|--:|`,
    ];
    for (const [key, value] of [...summary.packages.entries()]
      .sort((a, b) => b[1] - a[1])
      .filter(([, value]) => value >= 5000)) {
      lines.push(`| ${key} | ${(value / 1000).toFixed(0)} |`);
    }
    lines.push(``, `Top ${TOP} functions by self time:`, ``, `| function | ms |`, `|---|--:|`);
    for (const [key, value] of [...summary.functions.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      lines.push(`| \`${key}\` | ${(value / 1000).toFixed(0)} |`);
    }
    return lines.join("\n");
  } finally {
    await removeWorkDir(dir);
  }
}

function render(endpoint: Endpoint, summaries: Record<ServerKind, Summary>): string {
  const { generated } = summaries;
  const ceiling = summaries[AGAINST];
  const lines = [
    `### ${endpoint.name}: ${endpoint.method} ${endpoint.path}`,
    ``,
    `Sampled CPU per request: generated ${us(generated.busy / generated.requests)} µs, ${AGAINST} ${us(ceiling.busy / ceiling.requests)} µs ` +
      `(${generated.requests} and ${ceiling.requests} requests in ${DURATION} s under the profiler).`,
    ``,
    `| package / category | generated µs/req | ${AGAINST} µs/req | difference |`,
    `|---|--:|--:|--:|`,
  ];
  const packages = [...new Set([...generated.packages.keys(), ...ceiling.packages.keys()])]
    .map((key) => ({ key, g: perRequest(generated, key, "packages"), c: perRequest(ceiling, key, "packages") }))
    .sort((a, b) => b.g + b.c - (a.g + a.c));
  for (const { key, g, c } of packages.filter((entry) => entry.g + entry.c >= 0.5)) {
    lines.push(`| ${key} | ${us(g)} | ${us(c)} | ${g - c >= 0 ? "+" : ""}${us(g - c)} |`);
  }
  lines.push(
    ``,
    `Top ${TOP} functions of the generated server by self time:`,
    ``,
    `| function | generated µs/req | ${AGAINST} µs/req |`,
    `|---|--:|--:|`,
  );
  const top = [...generated.functions.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [key] of top) {
    lines.push(
      `| \`${key}\` | ${us(perRequest(generated, key, "functions"))} | ${us(perRequest(ceiling, key, "functions"))} |`,
    );
  }
  return lines.join("\n");
}

/** Each endpoint of the example generated for PostgreSQL, generated against the lean pg ceiling. */
async function profilePostgres(profileDir: string): Promise<void> {
  const setup = await setUpPostgres();
  if ("skipped" in setup) throw new Error(`PROFILE_DATABASE=postgresql: ${setup.skipped}`);
  try {
    const only = process.env.PROFILE_ONLY?.split(",");
    const sections = [
      `## CPU profiles, PostgreSQL (${setup.version}; node --cpu-prof; under load: ${DURATION} s after a ${settings.warmup} s warm-up, ${settings.connections} connections)`,
    ];
    const copy: Copy = (kind, endpoint) => setup.copy(`profile_${kind.replaceAll("-", "_")}_${endpoint.name}`);
    for (const endpoint of ENDPOINTS.filter((entry) => !only || only.includes(entry.name))) {
      const summaries = {} as Record<ServerKind, Summary>;
      for (const kind of KINDS) summaries[kind] = await profileOne(kind, endpoint, setup.serverDir, profileDir, copy);
      sections.push(render(endpoint, summaries));
    }
    console.log(sections.join("\n\n"));
    console.error(`[profile] profiles kept in ${profileDir}`);
  } finally {
    await setup.stop();
  }
}

/** The example on SQLite: generation, start-up, and each endpoint against the ceiling. */
async function profileSqlite(work: string, profileDir: string): Promise<void> {
  const serverDir = join(work, "server");
  await tablegenGenerate(join(REPO, "examples", "blog.yaml"), serverDir);
  await migrate(serverDir, "file:./seed.db");
  seed(join(serverDir, "seed.db"));
  const only = process.env.PROFILE_ONLY?.split(",");
  const sections: string[] = [
    `## CPU profiles (node --cpu-prof; under load: ${DURATION} s after a ${settings.warmup} s warm-up, ${settings.connections} connections)`,
  ];
  // tsc's output for the compiled start-up first (it writes dist/, then moves to dist-prod/), then
  // `npm start`'s transpile into dist/, and the ceiling through esbuild.
  let built = false;
  if (!only || only.includes("startup")) {
    try {
      await buildServer(serverDir);
      built = true;
    } catch (error) {
      console.error(`[profile] npm run build failed, no compiled start-up: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  await transpileServer(serverDir);
  await transpileCeiling(serverDir);
  if (!only || only.includes("generation")) sections.push(await profileGeneration(profileDir));
  if (!only || only.includes("startup")) {
    const startups: Partial<Record<StartMode, Summary>> = {};
    for (const mode of START_MODES) {
      if (mode !== "compiled" || built) startups[mode] = await profileStartup(mode, serverDir, profileDir);
    }
    sections.push(renderStartup(startups));
  }
  for (const endpoint of ENDPOINTS.filter((entry) => !only || only.includes(entry.name))) {
    const summaries = {} as Record<ServerKind, Summary>;
    const copy: Copy = async (kind, endpoint) => {
      const database = `profile-${kind}-${endpoint.name}.db`;
      copyDatabase(join(serverDir, "seed.db"), join(serverDir, database));
      return `file:./${database}`;
    };
    for (const kind of KINDS) summaries[kind] = await profileOne(kind, endpoint, serverDir, profileDir, copy);
    sections.push(render(endpoint, summaries));
  }
  console.log(sections.join("\n\n"));
  console.error(`[profile] profiles kept in ${profileDir}`);
}

const work = await workDir("bench-profile");
const profileDir = join(REPO, ".tmp", "bench-profiles");
try {
  await rm(profileDir, { recursive: true, force: true });
  await mkdir(profileDir, { recursive: true });
  if (POSTGRES) await profilePostgres(profileDir);
  else await profileSqlite(work, profileDir);
} finally {
  await removeWorkDir(work);
}
