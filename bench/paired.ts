// Paired A/B of server builds by CPU a request (issue 32): the blog example generated and seeded
// once, then each variant started side by side — the generated server as generated, copies of it
// each with one edit of yours, and the lean ceiling — and loaded in turn, BENCH_PAIRED_ROUNDS times
// (14) for BENCH_PAIRED_SECONDS (1.5) each, so that the machine's drift weighs on all alike. Prints
// each variant's median CPU a request and its ratio to the first variant, round by round.
//
//   npx tsx bench/paired.ts                    # generated (LOG_LEVEL=info) against lean
//   npx tsx bench/paired.ts edit-a edit-b      # …and two copies of the generated server, each made
//                                              #    by a script of yours: `<script> <copy of the server>`
//
// Edit `src/` in a copy, not `dist/`: `npm start`'s run.js transpiles `src/` again over an edited
// `dist/`. BENCH_PAIRED_PATH picks the endpoint (the show of user 7).
import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  count,
  envNumber,
  load,
  median,
  removeWorkDir,
  seededBlog,
  startServer,
  transpileCeiling,
  workDir,
  type Server,
} from "./lib.ts";

const ROUNDS = count("BENCH_PAIRED_ROUNDS", 14);
const SECONDS = envNumber("BENCH_PAIRED_SECONDS", 1.5);
const PATH = process.env.BENCH_PAIRED_PATH ?? "/blog/users/v1/show/7";
const edits = process.argv.slice(2).map((script) => resolve(script));

const work = await workDir("bench-paired");
const servers: [string, Server][] = [];
try {
  const { serverDir, file } = await seededBlog(work);
  await transpileCeiling(serverDir, ["lean"]);
  const variants: [string, string, "generated" | "lean"][] = [["generated", serverDir, "generated"]];
  edits.forEach((script, index) => {
    const copy = join(work, `edit-${index + 1}`);
    cpSync(serverDir, copy, { recursive: true });
    execFileSync(script, [copy], { stdio: "inherit" });
    variants.push([`generated + ${script}`, copy, "generated"]);
  });
  variants.push(["lean", serverDir, "lean"]);
  for (const [label, dir, kind] of variants) {
    servers.push([
      label,
      await startServer({ kind, serverDir: dir, databaseUrl: `file:${file}`, env: { LOG_LEVEL: "info" } }),
    ]);
  }
  const endpoint = { name: "paired", method: "GET" as const, path: PATH };
  for (const [, server] of servers) await load(server, endpoint, 2, "warm-up");
  const cpu = new Map<string, number[]>(servers.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, server] of servers) {
      const result = await load(server, endpoint, SECONDS, `${label}-${round}`);
      cpu.get(label)!.push((result.serverCpuMs / result.responses) * 1000);
    }
  }
  const first = cpu.get(servers[0]![0])!;
  for (const [label, values] of cpu) {
    const ratios = values.map((value, round) => value / first[round]!);
    console.log(
      `${label}: ${median(values).toFixed(1)} µs CPU a request; ÷ ${servers[0]![0]}: ${median(ratios).toFixed(2)} ` +
        `(rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(" ")})`,
    );
  }
} finally {
  for (const [, server] of servers) await server.stop();
  await removeWorkDir(work);
}
