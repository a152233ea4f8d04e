// expand and batch (issue 28), on the generated blog server with request logs on (LOG_LEVEL=info, as
// users run it), SQLite and PostgreSQL, each measured as ratios within one run:
//
// - a page of 100 posts with `expand=user,category` against the same page without expand: the
//   median time to last byte of sequential requests on one keep-alive connection, the two pages
//   interleaved request by request so that the machine's load weighs on both alike (goal: ≤ 1.6×);
// - 1,000 creates sent one at a time against one batch of 1,000 creates (goal: ≥ 10× faster),
//   each over a keep-alive connection, alternated in rounds.
//
//   npm run bench:expand     # ≈ 1 min; BENCH_EXPAND_REQUESTS (300 per page), BENCH_EXPAND_ROUNDS (3)
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import pg_ from "pg";
import { setUpPostgres } from "./pg.ts";
import { KEY, count, load, median, removeWorkDir, seededBlog, startServer, workDir, type Server } from "./lib.ts";

const REQUESTS = count("BENCH_EXPAND_REQUESTS", 300);
const ROUNDS = count("BENCH_EXPAND_ROUNDS", 3);
const LOAD_SECONDS = Number(process.env.BENCH_EXPAND_LOAD_SECONDS ?? 3);
const CREATES = 1000;
const log = (line: string) => console.error(`[expand ${new Date().toISOString().slice(11, 19)}] ${line}`);

const PLAIN = "/blog/posts/v1/list?limit=100";
const EXPANDED = "/blog/posts/v1/list?limit=100&expand=user,category";

/** One request's time to last byte, ms (fetch keeps its connection alive between requests). */
async function timed(url: string, init?: RequestInit): Promise<number> {
  const start = performance.now();
  const answer = await fetch(url, { ...init, headers: { "x-api-signature": KEY, ...init?.headers } });
  const body = await answer.text();
  if (answer.status !== 200 && answer.status !== 201) throw new Error(`${url}: ${answer.status} ${body.slice(0, 200)}`);
  return performance.now() - start;
}

/** Throughput under load (autocannon, BENCH_CONNECTIONS connections), the two pages alternated in rounds: requests a second, and the server's CPU a request. */
async function throughput(server: Server) {
  const plain: number[] = [];
  const expanded: number[] = [];
  const cpu = (result: { serverCpuMs: number; responses: number }) => result.serverCpuMs / result.responses;
  const plainCpu: number[] = [];
  const expandedCpu: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await load(server, { name: "page", method: "GET", path: PLAIN }, LOAD_SECONDS, `plain-${round}`);
    const b = await load(
      server,
      { name: "expanded", method: "GET", path: EXPANDED },
      LOAD_SECONDS,
      `expanded-${round}`,
    );
    if (a.non2xx + b.non2xx + a.errors + b.errors > 0) throw new Error("a load run met errors");
    plain.push(a.rps);
    expanded.push(b.rps);
    plainCpu.push(cpu(a));
    expandedCpu.push(cpu(b));
  }
  return { rps: median(plain) / median(expanded), cpu: median(expandedCpu) / median(plainCpu) };
}

async function pages(server: Server) {
  for (let i = 0; i < 50; i++) await Promise.all([timed(server.base + PLAIN), timed(server.base + EXPANDED)]);
  const plain: number[] = [];
  const expanded: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    plain.push(await timed(server.base + PLAIN));
    expanded.push(await timed(server.base + EXPANDED));
  }
  const bytes = async (path: string) =>
    Buffer.byteLength(await (await fetch(server.base + path, { headers: { "x-api-signature": KEY } })).text());
  return { plain: median(plain), expanded: median(expanded), bytes: (await bytes(EXPANDED)) / (await bytes(PLAIN)) };
}

let created = 0;
const user = () => ({ name: "Bench User", email: `bench-${++created}@example.com`, bio: "Created in a batch." });

async function creates(server: Server) {
  const post = (path: string, body: unknown) =>
    timed(server.base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const separate: number[] = [];
  const batched: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let total = 0;
    for (let i = 0; i < CREATES; i++) total += await post("/blog/users/v1/create", user());
    separate.push(total);
    const operations = Array.from({ length: CREATES }, () => ({ action: "create", table: "users", data: user() }));
    batched.push(await post("/blog/v1/batch", { operations }));
  }
  return { separate: median(separate), batched: median(batched) };
}

async function measure(label: string, server: Server, rows: string[], durable?: () => Promise<void>) {
  const page = await pages(server);
  log(`${label}: page of 100 ${page.plain.toFixed(2)} ms, with expand=user,category ${page.expanded.toFixed(2)} ms`);
  const loaded = await throughput(server);
  log(
    `${label}: under load, ${loaded.rps.toFixed(2)}× fewer requests a second, ${loaded.cpu.toFixed(2)}× the server's CPU a request`,
  );
  const write = await creates(server);
  log(
    `${label}: 1,000 creates one by one ${write.separate.toFixed(0)} ms, in one batch ${write.batched.toFixed(0)} ms`,
  );
  rows.push(
    `| ${label} | ${page.plain.toFixed(2)} | ${page.expanded.toFixed(2)} | **${(page.expanded / page.plain).toFixed(2)}×** | ` +
      `${loaded.rps.toFixed(2)}× | ${loaded.cpu.toFixed(2)}× | ${page.bytes.toFixed(1)}× | ` +
      `${write.separate.toFixed(0)} | ${write.batched.toFixed(0)} | **${(write.separate / write.batched).toFixed(1)}×** |`,
  );
  if (!durable) return;
  // The test cluster runs without durability (fsync=off, synchronous_commit=off): each separate
  // create's commit then waits for no disk. PostgreSQL's defaults, which users run, make it wait.
  await durable();
  const safe = await creates(server);
  log(
    `${label}, fsync and synchronous_commit on: one by one ${safe.separate.toFixed(0)} ms, in one batch ${safe.batched.toFixed(0)} ms`,
  );
  rows.push(
    `| ${label}, fsync=on, synchronous_commit=on (PostgreSQL's defaults) | | | | | | | ` +
      `${safe.separate.toFixed(0)} | ${safe.batched.toFixed(0)} | **${(safe.separate / safe.batched).toFixed(1)}×** |`,
  );
}

const rows: string[] = [];
const before = loadavg();
const work = await workDir("bench-expand");
try {
  const { serverDir, file } = await seededBlog(work);
  const sqlite = await startServer({
    kind: "generated",
    serverDir,
    databaseUrl: `file:${file}`,
    env: { LOG_LEVEL: "info" },
  });
  try {
    await measure("SQLite", sqlite, rows);
  } finally {
    await sqlite.stop();
  }
  const pg = await setUpPostgres();
  if ("skipped" in pg) log(pg.skipped);
  else {
    try {
      const databaseUrl = await pg.copy("bench_expand");
      const server = await startServer({
        kind: "generated",
        serverDir: pg.serverDir,
        databaseUrl,
        env: { LOG_LEVEL: "info" },
      });
      const durable = async () => {
        const client = new pg_.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query("ALTER SYSTEM SET fsync = on");
        await client.query("ALTER SYSTEM SET synchronous_commit = on");
        await client.query("SELECT pg_reload_conf()");
        await client.end();
      };
      try {
        await measure(`PostgreSQL (${pg.version})`, server, rows, durable);
      } finally {
        await server.stop();
      }
    } finally {
      await pg.stop();
    }
  }
} finally {
  await removeWorkDir(work);
}
const after = loadavg();
console.log(
  [
    `Load average (1, 5, 15 min) before: ${before.map((value) => value.toFixed(2)).join(", ")}; after: ` +
      `${after.map((value) => value.toFixed(2)).join(", ")}; ${availableParallelism()} cores. ` +
      `${REQUESTS} requests of each page, interleaved; ${ROUNDS} rounds of ${LOAD_SECONDS} s of load on each page ` +
      `and of 1,000 creates each way (medians).`,
    "",
    "| database | page of 100, ms (p50, sequential) | with expand=user,category, ms | ratio (goal ≤ 1.6×) | under load: requests/s, plain ÷ expanded | server CPU a request, expanded ÷ plain | bytes, expanded ÷ plain | 1,000 creates one by one, ms | one batch of 1,000, ms | faster (goal ≥ 10×) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
