// `npx tsx bench/async-style.ts`: what the async style costs. Three servers on copies of the same
// seeded database: the generated one, the ceiling, and the ceiling with CEILING_ASYNC=1 (its own
// code in the generated server's style: an async onRequest hook, async handlers). Rounds alternate
// between the three; per server the median req/s and CPU µs/request, and per round the ratios to
// the ceiling run just before. Environment: STYLE_ENDPOINTS (show,list,create), BENCH_ROUNDS
// (default here 8), BENCH_DURATION (default here 3 s), BENCH_WARMUP, BENCH_CONNECTIONS.
import { join } from "node:path";
import {
  copyDatabase,
  ENDPOINTS,
  KEY,
  load,
  median,
  migrate,
  REPO,
  removeWorkDir,
  seed,
  send,
  settings,
  startServer,
  tablegenGenerate,
  transpileCeiling,
  transpileServer,
  workDir,
  type Server,
} from "./lib.ts";
import type { LoadResult } from "./load.ts";

const rounds = Number(process.env.BENCH_ROUNDS || 8);
const duration = Number(process.env.BENCH_DURATION || 3);
const only = (process.env.STYLE_ENDPOINTS || "show,list,create").split(",");
const VARIANTS = ["generated", "ceiling", "ceiling-async"] as const;
type Variant = (typeof VARIANTS)[number];

const work = await workDir("bench-style");
const servers: Partial<Record<Variant, Server>> = {};
try {
  const serverDir = join(work, "server");
  await tablegenGenerate(join(REPO, "examples", "blog.yaml"), serverDir);
  await migrate(serverDir, "file:./seed.db");
  seed(join(serverDir, "seed.db"));
  // Plain JavaScript, as `npm start` runs the generated server: dist/ (esbuild) and ceiling.mjs.
  await transpileServer(serverDir);
  await transpileCeiling(serverDir);
  for (const variant of VARIANTS) {
    copyDatabase(join(serverDir, "seed.db"), join(serverDir, `${variant}.db`));
    servers[variant] = await startServer({
      kind: variant === "generated" ? "generated" : "ceiling",
      serverDir,
      databaseUrl: `file:./${variant}.db`,
      ...(variant === "ceiling-async" && { env: { CEILING_ASYNC: "1" } }),
    });
  }
  // The async variant must answer like the others, the 401 included (its hook throws instead).
  for (const headers of [{ "x-api-signature": KEY }, {}] as Record<string, string>[]) {
    const answers = await Promise.all(VARIANTS.map((v) => send(servers[v]!.base + ENDPOINTS[0]!.path, { headers })));
    if (new Set(answers.map((answer) => `${answer.status} ${answer.body}`)).size !== 1) {
      throw new Error(`the variants answer differently: ${JSON.stringify(answers)}`);
    }
  }

  const lines = [
    `| endpoint | generated req/s | ceiling req/s | ceiling-async req/s | generated CPU µs/req | ceiling | ceiling-async | paired generated/ceiling | paired ceiling-async/ceiling |`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|`,
  ];
  for (const endpoint of ENDPOINTS.filter((entry) => only.includes(entry.name))) {
    for (const variant of VARIANTS) await load(servers[variant]!, endpoint, settings.warmup, `${variant}-warmup`);
    const results: Record<Variant, LoadResult[]> = { generated: [], ceiling: [], "ceiling-async": [] };
    for (let round = 1; round <= rounds; round++) {
      for (const variant of VARIANTS) {
        results[variant].push(await load(servers[variant]!, endpoint, duration, `${variant}-${round}`));
      }
      console.error(
        `[style] ${endpoint.name} round ${round}: ` +
          VARIANTS.map((v) => `${v} ${Math.round(results[v].at(-1)!.rps)}`).join(", "),
      );
    }
    const rps = (v: Variant) => median(results[v].map((r) => r.rps));
    const cpu = (v: Variant) => median(results[v].map((r) => (r.serverCpuMs * 1000) / r.responses));
    const paired = (v: Variant) => median(results[v].map((r, i) => r.rps / results.ceiling[i]!.rps));
    lines.push(
      `| ${endpoint.name} | ${rps("generated").toFixed(0)} | ${rps("ceiling").toFixed(0)} | ${rps("ceiling-async").toFixed(0)} ` +
        `| ${cpu("generated").toFixed(0)} | ${cpu("ceiling").toFixed(0)} | ${cpu("ceiling-async").toFixed(0)} ` +
        `| ${paired("generated").toFixed(2)} | ${paired("ceiling-async").toFixed(2)} |`,
    );
  }
  console.log(
    `${rounds} rounds × ${duration} s per server, rotating generated → ceiling → ceiling-async, ${settings.connections} connections; medians.\n\n` +
      lines.join("\n"),
  );
} finally {
  for (const server of Object.values(servers)) await server.stop();
  await removeWorkDir(work);
}
