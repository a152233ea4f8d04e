// Paired A/B of server builds by CPU a request (issue 32): the blog example generated and seeded
// once, then each variant started side by side — the generated server as generated, copies of it
// each with one edit of yours, and the lean ceiling — each given BENCH_PAIRED_WARMUP seconds (2) of
// load, then loaded in turn, BENCH_PAIRED_ROUNDS times (14) for BENCH_PAIRED_SECONDS (1.5) each, so
// that the machine's drift weighs on all alike. Prints each variant's median CPU a request and its
// ratio to the first variant, round by round.
//
//   npx tsx bench/paired.ts                    # generated (LOG_LEVEL=info) against lean
//   npx tsx bench/paired.ts edit-a edit-b      # …and two copies of the generated server, each made
//                                              #    by a script of yours: `<script> <copy of the server>`
//
// Edit `src/` in a copy, not `dist/`: `npm start`'s run.js transpiles `src/` again over an edited
// `dist/`. Give a script that edits nothing (`true`) beside yours: on a shared VM an unedited copy has
// measured 4–11 % dearer than the original in the same run, and an edit is only told apart beyond that.
//
// BENCH_PAIRED_ENDPOINT picks one of bench/lib.ts's endpoints by name (show, list, query, create),
// BENCH_PAIRED_PATH a GET path instead (the show of user 7 unless either is given).
// BENCH_PAIRED_DB=postgresql runs them on a throwaway PostgreSQL (bench/pg.ts's set-up: the blog
// example generated for PostgreSQL, against bench/lean-pg.ts), each server on its own copy of the
// seeded database; on SQLite, each on its own copy of the seeded file.
import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join, resolve } from "node:path";
import { setUpPostgres } from "./pg.ts";
import {
  copyDatabase,
  count,
  ENDPOINTS,
  envNumber,
  load,
  median,
  removeWorkDir,
  seededBlog,
  startServer,
  transpileCeiling,
  workDir,
  type Endpoint,
  type Server,
  type ServerKind,
} from "./lib.ts";

const ROUNDS = count("BENCH_PAIRED_ROUNDS", 14);
const SECONDS = envNumber("BENCH_PAIRED_SECONDS", 1.5);
/** Seconds of load each server is given before the rounds (its code optimised, its heap grown). */
const WARMUP = envNumber("BENCH_PAIRED_WARMUP", 2);
const POSTGRES = process.env.BENCH_PAIRED_DB === "postgresql";
const edits = process.argv.slice(2).map((script) => resolve(script));

const named = process.env.BENCH_PAIRED_ENDPOINT;
const endpoint: Endpoint = named
  ? (ENDPOINTS.find((entry) => entry.name === named) ??
    fail(`BENCH_PAIRED_ENDPOINT=${named} is none of bench/lib.ts's`))
  : { name: "paired", method: "GET", path: process.env.BENCH_PAIRED_PATH ?? "/blog/users/v1/show/7" };

function fail(message: string): never {
  throw new Error(message);
}

/** Where the variants run: the generated server's directory, and a fresh database for each server. */
interface Database {
  serverDir: string;
  lean: ServerKind;
  databaseUrl(name: string): Promise<string>;
  stop(): Promise<void>;
}

async function sqlite(work: string): Promise<Database> {
  const { serverDir, file } = await seededBlog(work);
  await transpileCeiling(serverDir, ["lean"]);
  return {
    serverDir,
    lean: "lean",
    databaseUrl: async (name) => {
      const copy = join(work, `${name}.db`);
      copyDatabase(file, copy);
      return `file:${copy}`;
    },
    stop: async () => {},
  };
}

async function postgresql(): Promise<Database> {
  const setup = await setUpPostgres();
  if ("skipped" in setup) fail(setup.skipped);
  return { serverDir: setup.serverDir, lean: "lean-pg", databaseUrl: setup.copy, stop: setup.stop };
}

const work = await workDir("bench-paired");
const servers: [string, Server][] = [];
let database: Database | undefined;
try {
  database = POSTGRES ? await postgresql() : await sqlite(work);
  const { serverDir } = database;
  const variants: [string, string, ServerKind][] = [["generated", serverDir, "generated"]];
  edits.forEach((script, index) => {
    const copy = join(work, `edit-${index + 1}`);
    cpSync(serverDir, copy, { recursive: true });
    execFileSync(script, [copy], { stdio: "inherit" });
    variants.push([`generated + ${script}`, copy, "generated"]);
  });
  variants.push(["lean", serverDir, database.lean]);
  for (const [index, [label, dir, kind]] of variants.entries()) {
    const databaseUrl = await database.databaseUrl(`paired_${index}`);
    servers.push([label, await startServer({ kind, serverDir: dir, databaseUrl, env: { LOG_LEVEL: "info" } })]);
  }
  for (const [, server] of servers) await load(server, endpoint, WARMUP, "warm-up");
  const cpu = new Map<string, number[]>(servers.map(([label]) => [label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [label, server]] of servers.entries()) {
      // The tag makes a create's email unique: a word, not the label (an edit script's path).
      const result = await load(server, endpoint, SECONDS, `variant${index}-${round}`);
      if (result.non2xx > 0) fail(`${label} answered ${result.non2xx} requests of round ${round} with no 2xx`);
      cpu.get(label)!.push((result.serverCpuMs / result.responses) * 1000);
    }
  }
  console.log(`${POSTGRES ? "PostgreSQL" : "SQLite"}, ${endpoint.method} ${endpoint.path}, ${ROUNDS} rounds:`);
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
  await database?.stop();
  await removeWorkDir(work);
}
