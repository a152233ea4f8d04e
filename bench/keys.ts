// The keys part of `npm run bench` (issue 29): what API_KEY_<NAME> keys cost a request, on SQLite
// and on PostgreSQL. The generated server of examples/blog.yaml and its lean ceiling, in the same
// rounds, each process on its own fresh copy of the seeded database:
//
//   generated   no API_KEY_ variable, the full key: the server as it was before keys;
//   full-key    three API_KEY_ variables set (so every route carries its set of keys), the full key:
//               API_SIGNATURE_KEY's path, which must cost what it did;
//   scoped      the same server, a key scoped to `*:write` (it reaches every endpoint), no limit:
//               the hash of the presented key, its lookup and the route's set;
//   limited     the same, a `*:write` key with a limit it never reaches (1000000000/day): the count
//               too (SQLite: in the process's memory; PostgreSQL: one statement per request);
//   lean        the lean ceiling (bench/lean.ts, bench/lean-pg.ts), the full key.
//
// Reported: each ÷ lean (the ratios of the rest of the benchmark, which must hold with a scoped key)
// and each ÷ generated. `npm run bench` runs it last unless BENCH_KEYS=0; `npm run bench -- --keys`
// runs it alone (BENCH_KEYS_DATABASES=sqlite or postgresql for one database).
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  ENDPOINTS,
  KEY,
  copyDatabase,
  load,
  median,
  medianBy,
  migrate,
  REPO,
  removeWorkDir,
  seed,
  settings,
  startServer,
  tablegenGenerate,
  transpileCeiling,
  transpileServer,
  workDir,
  type Server,
  type ServerKind,
} from "./lib.ts";
import { setUpPostgres, type MeasureRound, type PgRound } from "./pg.ts";

const SCOPED = "bench-scoped-key-0123456789abcdef";
const LIMITED = "bench-limited-key-0123456789abcdef";
const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** The API_KEY_ variables of the servers that have keys: `tablegen keys new`'s lines. */
const KEY_VARIABLES = {
  API_KEY_BENCH_SCOPED: `sha256:${sha256(SCOPED)};scope=*:write`,
  API_KEY_BENCH_LIMITED: `sha256:${sha256(LIMITED)};scope=*:write;limit=1000000000/day`,
  API_KEY_BENCH_READER: `sha256:${sha256("reader")};scope=users:read,category_posts:read;expires=2999-01-01T00:00:00Z`,
};

const KINDS = [
  { label: "generated", keys: false, key: KEY },
  { label: "full-key", keys: true, key: KEY },
  { label: "scoped", keys: true, key: SCOPED },
  { label: "limited", keys: true, key: LIMITED },
  { label: "lean", keys: false, key: KEY },
] as const;
type Label = (typeof KINDS)[number]["label"];

export interface KeysEndpointResult<R extends PgRound> {
  endpoint: string;
  rounds: Record<Label, R[]>;
  median: Record<Label, R>;
  /** Median-round req/s of each ÷ lean's, and ÷ generated's; paired rounds ÷ generated. */
  vsLean: Record<Label, number>;
  vsGenerated: Record<Label, number>;
  pairedVsGenerated: Record<Label, number>;
}

export type KeysResult<R extends PgRound> = {
  databases: ({ database: string; results: KeysEndpointResult<R>[] } | { database: string; skipped: string })[];
};

const log = (message: string) => console.error(`[bench keys ${new Date().toISOString().slice(11, 19)}] ${message}`);

interface Setup {
  database: string;
  serverDir: string;
  leanKind: ServerKind;
  /** A fresh copy of the seeded database; its DATABASE_URL. */
  copy: (name: string) => Promise<string>;
  databaseCpu?: () => () => number;
  stop: () => Promise<void>;
}

async function setUpSqlite(): Promise<Setup> {
  const work = await workDir("bench-keys");
  const serverDir = join(work, "server");
  log(`generating examples/blog.yaml into ${serverDir}`);
  await tablegenGenerate(join(REPO, "examples", "blog.yaml"), serverDir);
  await migrate(serverDir, "file:./seed.db");
  seed(join(serverDir, "seed.db"));
  await transpileServer(serverDir);
  await transpileCeiling(serverDir, ["lean"]);
  return {
    database: "SQLite",
    serverDir,
    leanKind: "lean",
    copy: async (name) => {
      copyDatabase(join(serverDir, "seed.db"), join(serverDir, `${name}.db`));
      return `file:./${name}.db`;
    },
    stop: () => removeWorkDir(work),
  };
}

async function setUp(database: string): Promise<Setup | { skipped: string }> {
  if (database === "sqlite") return setUpSqlite();
  const setup = await setUpPostgres();
  if ("skipped" in setup) return setup;
  return { database: setup.version, leanKind: "lean-pg", ...setup };
}

/**
 * The keys benchmark on each database (BENCH_KEYS_DATABASES, default both). `measureRound` is
 * bench/run.ts's; `running` collects the servers started, for the caller to stop on failure.
 */
export async function keysBenchmark<R extends PgRound>(
  measureRound: MeasureRound<R>,
  running: Server[],
): Promise<KeysResult<R>> {
  const databases = (process.env.BENCH_KEYS_DATABASES ?? "sqlite,postgresql").split(",");
  const only = process.env.BENCH_ENDPOINTS?.split(",");
  const endpoints = ENDPOINTS.filter((entry) => !only || only.includes(entry.name));
  const result: KeysResult<R> = { databases: [] };
  for (const database of databases) {
    const setup = await setUp(database);
    if ("skipped" in setup) {
      result.databases.push({ database, skipped: setup.skipped });
      continue;
    }
    try {
      const rounds = new Map(endpoints.map((endpoint) => [endpoint.name, {} as Record<Label, R[]>]));
      for (let round = 1; round <= settings.rounds; round++) {
        const servers = new Map<Label, Server & { key: string }>();
        for (const kind of KINDS) {
          const server = await startServer({
            kind: kind.label === "lean" ? setup.leanKind : "generated",
            serverDir: setup.serverDir,
            databaseUrl: await setup.copy(`keys_${kind.label.replace("-", "_")}_${round}`),
            ...(kind.keys && { env: KEY_VARIABLES }),
          });
          running.push(server);
          // bench/lib.ts's load sends the server's key.
          servers.set(kind.label, { ...server, key: kind.key });
        }
        for (const endpoint of endpoints) {
          for (const kind of KINDS)
            await load(servers.get(kind.label)!, endpoint, settings.warmup, `keys-${kind.label}-${round}-warmup`);
          const byLabel = rounds.get(endpoint.name)!;
          for (const kind of KINDS) {
            const server = servers.get(kind.label)!;
            const measured = await measureRound({ ...server, kind: kind.label }, endpoint, round, setup.databaseCpu);
            (byLabel[kind.label] ??= []).push(measured);
          }
        }
        for (const server of servers.values()) {
          await server.stop();
          running.splice(
            running.findIndex((candidate) => candidate.pid === server.pid),
            1,
          );
        }
      }
      const results = endpoints.map((endpoint): KeysEndpointResult<R> => {
        const byLabel = rounds.get(endpoint.name)!;
        const middle = Object.fromEntries(
          KINDS.map(({ label }) => [label, medianBy(byLabel[label], (r) => r.rps)]),
        ) as Record<Label, R>;
        const each = (value: (label: Label) => number) =>
          Object.fromEntries(KINDS.map(({ label }) => [label, value(label)])) as Record<Label, number>;
        return {
          endpoint: endpoint.name,
          rounds: byLabel,
          median: middle,
          vsLean: each((label) => middle[label].rps / middle.lean.rps),
          vsGenerated: each((label) => middle[label].rps / middle.generated.rps),
          pairedVsGenerated: each((label) =>
            median(byLabel[label].map((round, i) => round.rps / byLabel.generated[i]!.rps)),
          ),
        };
      });
      result.databases.push({ database: setup.database, results });
    } finally {
      for (const server of [...running]) await server.stop().catch(() => {});
      running.length = 0;
      await setup.stop();
    }
  }
  return result;
}

const fmt = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "–";

/** The report's keys section (markdown lines). */
export function renderKeys<R extends PgRound>(result: KeysResult<R>): string[] {
  const lines = [
    ``,
    `### Keys: a scoped key's request against the full key's and the lean ceiling (bench/keys.ts)`,
    ``,
    `The generated server without keys (\`generated\`), the same with three API_KEY_ variables loaded with the full ` +
      `key (\`full-key\`), with a \`*:write\` key (\`scoped\`), with a \`*:write\` key under a limit it never reaches ` +
      `(\`limited\`: SQLite counts in memory, PostgreSQL one statement per request), and the lean ceiling; ` +
      `${settings.rounds} rounds, each on fresh servers and fresh database copies, ${settings.warmup} s warm-up and ` +
      `${settings.duration} s of each per endpoint. Median rounds.`,
  ];
  for (const entry of result.databases) {
    lines.push(``, `#### ${entry.database}`, ``);
    if ("skipped" in entry) {
      lines.push(`Left out: ${entry.skipped}.`);
      continue;
    }
    lines.push(
      `| endpoint | ${KINDS.map(({ label }) => `${label} req/s (CPU µs/req)`).join(" | ")} | ÷ lean: generated, full-key, scoped, limited | ÷ generated (paired rounds): full-key, scoped, limited |`,
      `|---|${KINDS.map(() => "--:").join("|")}|--:|--:|`,
      ...entry.results.map((r) => {
        const cells = KINDS.map(
          ({ label }) => `${fmt(r.median[label].rps, 0)} (${fmt(r.median[label].cpuUsPerRequest, 0)})`,
        );
        const keyed = ["full-key", "scoped", "limited"] as const;
        return (
          `| ${r.endpoint} | ${cells.join(" | ")} | ${["generated", ...keyed].map((label) => fmt(r.vsLean[label as Label], 2)).join(", ")} ` +
          `| ${keyed.map((label) => `${fmt(r.vsGenerated[label], 2)} (${fmt(r.pairedVsGenerated[label], 2)})`).join(", ")} |`
        );
      }),
      ``,
      `Every round (req/s): ${entry.results
        .map(
          (r) =>
            `${r.endpoint}: ` +
            KINDS.map(({ label }) => `${label} ${r.rounds[label].map((round) => fmt(round.rps, 0)).join("/")}`).join(
              ", ",
            ),
        )
        .join("; ")}.`,
    );
    const bad = entry.results.flatMap((r) =>
      KINDS.flatMap(({ label }) =>
        r.rounds[label]
          .filter((round) => round.non2xx + round.errors + round.timeouts > 0)
          .map(
            (round) => `${r.endpoint} ${label} round ${round.round}: ${round.non2xx} non-2xx, ${round.errors} errors`,
          ),
      ),
    );
    lines.push(
      ``,
      bad.length === 0 ? `Every response under load was 2xx.` : `Rounds with failures: ${bad.join("; ")}.`,
    );
  }
  return lines;
}
