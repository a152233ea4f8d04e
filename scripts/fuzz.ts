// `npm run fuzz`: hostile requests over raw sockets against the blog example's generated server,
// on SQLite and on PostgreSQL (a throwaway server, when PostgreSQL is installed), each started with
// a 256 MB heap cap and short timeouts. Every answer must be below 500, exactly the envelope and
// leak nothing; afterwards the server must be alive and every record it acknowledged intact.
// Prints the answers by status and exits 1 on any failure.
//
//   npm run fuzz -- [--count 12000] [--seed 17] [--concurrency 16] [--databases sqlite,postgresql]
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { generate } from "../src/cli/generate.ts";
import { findPostgres, startPostgres, type PostgresServer } from "../test/helpers/postgres.ts";
import { createDatabase } from "../test/helpers/pg-database.ts";
import { runFuzz, seedRecords, type FuzzReport } from "../test/fuzz/run.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const KEY = "fuzz-key-5b0d1c2e9f7a4c38";
/** The server's timeouts: short, so that requests left incomplete are answered (408) quickly. */
const TIMEOUTS = { HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "2000", CONNECTION_TIMEOUT_MS: "5000" };
const HEAP_MB = 256;
/** How long the server rests after the run before its memory is read again. */
const REST_MS = 10_000;

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "12000" },
    seed: { type: "string", default: "17" },
    concurrency: { type: "string", default: "16" },
    databases: { type: "string", default: "sqlite,postgresql" },
  },
});
const count = Number(values.count);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);

const root = await mkdtemp(join(tmpdir(), "tablegen-fuzz-"));
await symlink(join(REPO, "node_modules"), join(root, "node_modules"));
let postgres: PostgresServer | undefined;
let failed = false;
try {
  for (const database of values.databases.split(",")) {
    let url: string;
    if (database === "postgresql") {
      const bin = findPostgres();
      if (!bin) {
        console.log("PostgreSQL is not installed: its run is SKIPPED");
        continue;
      }
      postgres ??= await startPostgres(bin);
      url = await createDatabase(postgres.url, "fuzz");
    } else {
      url = "file:./fuzz.db";
    }
    const outcome = await fuzzDatabase(database, url);
    failed ||= !outcome;
  }
} finally {
  postgres?.stop();
  await rm(root, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

/** Generates, migrates and starts the blog server on one database, fuzzes it, and reports; true when all held. */
async function fuzzDatabase(database: string, databaseUrl: string): Promise<boolean> {
  const dir = join(root, database);
  const manifest = join(root, `blog-${database}.yaml`);
  const text = readFileSync(join(REPO, "examples", "blog.yaml"), "utf8");
  await writeFile(manifest, text.replace(/^database: \w+$/m, `database: ${database}`));
  await generate({ manifest, out: dir });
  const env = { ...process.env, DATABASE_URL: databaseUrl };
  await execa("npm", ["run", "--silent", "migrate"], { cwd: dir, env });
  await execa("npm", ["run", "--silent", "transpile"], { cwd: dir });

  const server = execa(process.execPath, [`--max-old-space-size=${HEAP_MB}`, "dist/server.js"], {
    cwd: dir,
    env: { ...env, ...TIMEOUTS, API_SIGNATURE_KEY: KEY, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "error" },
    reject: false,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    server.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    server.on("exit", (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
  });

  await seedRecords(url, KEY);
  const idleRssMb = rssMb(server.pid!, "VmRSS");
  const started = performance.now();
  const report = await runFuzz({ url, key: KEY, seed, count, concurrency, deadlineMs: 8000 });
  const seconds = (performance.now() - started) / 1000;
  const alive =
    server.exitCode === null &&
    (await fetch(`${url}/blog/users/v1/list`, { headers: { "x-api-signature": KEY } })).status === 200;
  const peakRssMb = rssMb(server.pid!, "VmHWM");
  // At rest after the run: what a long-lived server keeps (V8 returns freed heap to the system lazily).
  await new Promise((resolve) => setTimeout(resolve, REST_MS));
  const restRssMb = rssMb(server.pid!, "VmRSS");
  server.kill("SIGTERM");
  await once(server, "exit").catch(() => undefined);

  print(database, report, { seconds, alive, idleRssMb, peakRssMb, restRssMb });
  return alive && report.failures.length === 0;
}

/** A process's memory from /proc, MB: its resident set now (VmRSS) or at its peak (VmHWM). */
function rssMb(pid: number, field: "VmRSS" | "VmHWM"): number | undefined {
  const kb = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))?.[1];
  return kb ? Math.round(Number(kb) / 1024) : undefined;
}

interface Run {
  seconds: number;
  alive: boolean;
  idleRssMb?: number;
  peakRssMb?: number;
  restRssMb?: number;
}

function print(database: string, report: FuzzReport, run: Run) {
  const statuses = Object.entries(report.byStatus).sort(([a], [b]) => a.localeCompare(b));
  const kinds = Object.entries(report.byKind).sort(([a], [b]) => a.localeCompare(b));
  console.log(
    `\n${database}: ${report.requests} requests in ${run.seconds.toFixed(1)} s (seed ${seed}, ${concurrency} at a time, heap cap ${HEAP_MB} MB)`,
  );
  console.log(`  by status: ${statuses.map(([status, n]) => `${status}: ${n}`).join(", ")}`);
  console.log(`  by kind:   ${kinds.map(([kind, n]) => `${kind}: ${n}`).join(", ")}`);
  console.log(
    `  5xx: ${statuses.filter(([status]) => status.startsWith("5")).reduce((sum, [, n]) => sum + n, 0)}, unanswered: ${report.byStatus.unanswered ?? 0}, hangs: ${report.byStatus.hang ?? 0}, rule breaks: ${report.failures.length}`,
  );
  console.log(
    `  slowest answer ${report.slowestMs} ms; RSS idle before ${run.idleRssMb ?? "?"} MB, peak ${run.peakRssMb ?? "?"} MB, at rest ${REST_MS / 1000} s after ${run.restRssMb ?? "?"} MB; alive after: ${run.alive ? "yes" : "NO"}; acknowledged records read back intact: ${report.checkedRecords}`,
  );
  for (const failure of report.failures.slice(0, 30)) console.log(`  FAIL ${failure}`);
  if (report.failures.length > 30) console.log(`  … and ${report.failures.length - 30} more`);
}
