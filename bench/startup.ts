// `npm run bench:startup` (issue 18): the generated server's start-up alone, and what it is made of.
// Generates examples/blog.yaml into .tmp/bench-startup-*/server, migrates and seeds it, then starts
// it BENCH_STARTS times (default 10) with each command below, the commands in turn (so that a
// change of the machine's load falls on all of them alike): spawn → first 200 answer of
// GET /blog/users/v1/list, wall time, and the CPU time its processes had used by then (those they
// waited for, the nested npm and esbuild of an older `npm start`, included).
//
//   npm start                                   as a user runs it; nothing changed since the last start
//   npm start after an edit                     src/custom/routes.ts touched first: run.js transpiles it
//   node run.js server                          npm start without npm
//   node dist/server.js                         the server alone: no check of src/, stack traces unmapped
//   node --enable-source-maps dist/server.js    the server as npm start ran it before run.js
//
// Then, as many times, the phases of node's start inside one process (bench/startup-phases.mjs, copied
// into the server): CPU time of each, median.
//
// Knobs: BENCH_STARTS, BENCH_KEEP=1 (keep the scratch directory). Raw numbers: .tmp/bench-startup.json.
import { readFileSync } from "node:fs";
import { copyFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import {
  BENCH,
  KEY,
  median,
  migrate,
  REPO,
  removeWorkDir,
  seed,
  settings,
  tablegenGenerate,
  timeStart,
  transpileServer,
  workDir,
} from "./lib.ts";

const STARTS = Math.max(1, Number(process.env.BENCH_STARTS) || 10);
const EDITED = "src/custom/routes.ts";

const COMMANDS: { label: string; command: string[]; edited?: string }[] = [
  { label: "npm start", command: ["npm", "start"] },
  { label: `npm start after an edit of ${EDITED}`, command: ["npm", "start"], edited: EDITED },
  { label: "node run.js server", command: [process.execPath, "run.js", "server"] },
  { label: "node dist/server.js", command: [process.execPath, "dist/server.js"] },
  {
    label: "node --enable-source-maps dist/server.js",
    command: [process.execPath, "--enable-source-maps", "dist/server.js"],
  },
];

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const range = (values: number[]) =>
  `${Math.round(median(values))} (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`;

async function main() {
  const work = await workDir("bench-startup");
  const serverDir = join(work, "server");
  try {
    await tablegenGenerate(join(REPO, "examples", "blog.yaml"), serverDir);
    await migrate(serverDir, "file:./data.db");
    seed(join(serverDir, "data.db"));
    const transpileMs = await transpileServer(serverDir);
    const loadBefore = loadAverage();
    const runs = COMMANDS.map(() => ({ ms: [] as number[], cpuMs: [] as number[] }));
    for (let i = 0; i < STARTS; i++) {
      for (const [index, { command, edited }] of COMMANDS.entries()) {
        const run = await timeStart(command, serverDir, "file:./data.db", edited);
        runs[index]!.ms.push(run.ms);
        runs[index]!.cpuMs.push(run.cpuMs);
      }
    }
    await copyFile(join(BENCH, "startup-phases.mjs"), join(serverDir, "startup-phases.mjs"));
    const phases: Record<string, number>[] = [];
    for (let i = 0; i < STARTS; i++) {
      const { stdout } = await execa(process.execPath, ["startup-phases.mjs"], {
        cwd: serverDir,
        env: { DATABASE_URL: "file:./data.db", API_SIGNATURE_KEY: KEY, LOG_LEVEL: "warn" },
      });
      phases.push(JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, number>);
    }
    const loadAfter = loadAverage();

    const lines = [
      `Start-up of the generated blog server (SQLite), ${STARTS} starts of each command in turn; ` +
        `load average ${loadBefore} before, ${loadAfter} after; a whole \`npm run -s transpile\` took ${Math.round(transpileMs)} ms.`,
      ``,
      `| command | spawn → first list answer, median (min–max), ms | CPU time by then, median (min–max), ms |`,
      `|---|--:|--:|`,
      ...COMMANDS.map(
        ({ label }, index) => `| \`${label}\` | ${range(runs[index]!.ms)} | ${range(runs[index]!.cpuMs)} |`,
      ),
      ``,
      `| phase of node's start, in one process (bench/startup-phases.mjs) | CPU ms, median (min–max) |`,
      `|---|--:|`,
      ...Object.keys(phases[0]!).map((phase) => `| ${phase} | ${range(phases.map((run) => run[phase]!))} |`),
    ];
    console.log(lines.join("\n"));
    const raw = {
      loadBefore,
      loadAfter,
      transpileMs,
      commands: COMMANDS.map((command, index) => ({ ...command, ...runs[index] })),
      phases,
    };
    await writeFile(join(REPO, ".tmp", "bench-startup.json"), JSON.stringify(raw, null, 2) + "\n");
  } finally {
    if (settings.keep) console.log(`kept ${work}`);
    await removeWorkDir(work);
  }
}

await main();
