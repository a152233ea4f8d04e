// How cost grows with the table (issue 18), run by `npm run bench` after its other rounds, or alone:
//
//   npx tsx bench/growth.ts        # ≈ 4 min; prints its section of the report, raw numbers in .tmp/bench-growth.json
//
//   1. generates examples/blog.yaml into .tmp/bench-growth-*/server, migrates an empty database with
//      the server's own `npm run migrate`, and copies it per size (BENCH_GROWTH_ROWS, default 100,
//      10,000 and 1,000,000 users), each seeded in one statement (usersSeedSql: the bench's users,
//      numbered on);
//   2. per size, the generated server (`node --enable-source-maps dist/server.js`) and the lean
//      ceiling (bench/lean.ts) on the same database file; their answers are first checked to be the
//      same (show, a page and its Link, the whole list up to 10,000 rows); then per endpoint a
//      warm-up of each and BENCH_GROWTH_ROUNDS rounds of generated, lean (autocannon, as
//      `npm run bench`): show of the middle row, the first page (`?limit=100`), and the whole list
//      up to BENCH_GROWTH_LOAD_ROWS rows (10 answers of 165 MB at once are not a load anyone
//      serves); then the whole list one request at a time, each on a fresh connection: time to last
//      byte, bytes, and the server's RSS growth while it answers;
//   3. on the largest table (BENCH_GROWTH_MIGRATE_ROWS, 1,000,000), the manifest changed twice as a
//      user changes it: a required field with a default added, then a field renamed
//      (`renamedFrom`, the API keeping the old name with `names`); each time `tablegen generate`,
//      `tablegen migrate --create-only` (which writes the migration, counting rows at risk on the
//      live database), then the server's `npm run migrate`, timed, then the same `npm run migrate`
//      again with nothing to apply (its fixed cost); the row count, a sample row and the file size
//      before and after;
//   4. the same migrations on PostgreSQL (a throwaway server, test/helpers/postgres.ts) when its
//      binaries are there, unless BENCH_GROWTH_PG=0.
//
// Knobs: BENCH_GROWTH=0 (leave it out of `npm run bench`), BENCH_GROWTH_ROWS (100,10000,1000000),
// BENCH_GROWTH_DURATION (3 s per round), BENCH_GROWTH_ROUNDS (2), BENCH_GROWTH_WARMUP (1 s),
// BENCH_GROWTH_LOAD_ROWS (10000), BENCH_GROWTH_LIST_REQUESTS (20) and BENCH_GROWTH_LIST_SECONDS (4 s,
// at least 3 requests) for the whole list one at a time, BENCH_GROWTH_MIGRATE_ROWS (1000000),
// BENCH_GROWTH_PG=0; BENCH_CONNECTIONS and BENCH_KEEP as for `npm run bench`.
import { statSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import Database from "better-sqlite3";
import { execa } from "execa";
import pg from "pg";
import { findPostgres, startPostgres } from "../test/helpers/postgres.ts";
import {
  KEY,
  REPO,
  TABLEGEN,
  copyDatabase,
  count,
  envNumber,
  load,
  median,
  postgresUsersSeedSql,
  removeWorkDir,
  settings,
  startServer,
  tablegenGenerate,
  transpileCeiling,
  usersSeedSql,
  wholeList,
  workDir,
  type Endpoint,
  type Server,
} from "./lib.ts";

const growthSettings = {
  rows: (process.env.BENCH_GROWTH_ROWS ?? "100,10000,1000000")
    .split(",")
    .map((text) => Number(text.replaceAll("_", "")))
    .filter((rows) => Number.isInteger(rows) && rows > 0)
    .sort((a, b) => a - b),
  duration: envNumber("BENCH_GROWTH_DURATION", 3),
  rounds: count("BENCH_GROWTH_ROUNDS", 2),
  warmup: envNumber("BENCH_GROWTH_WARMUP", 1),
  loadRows: envNumber("BENCH_GROWTH_LOAD_ROWS", 10_000),
  listRequests: count("BENCH_GROWTH_LIST_REQUESTS", 20),
  listSeconds: envNumber("BENCH_GROWTH_LIST_SECONDS", 4),
  migrateRows: count("BENCH_GROWTH_MIGRATE_ROWS", 1_000_000),
  postgres: process.env.BENCH_GROWTH_PG !== "0",
  /** BENCH_GROWTH_ONLY=lists or =migrate: one half alone. */
  only: process.env.BENCH_GROWTH_ONLY as "lists" | "migrate" | undefined,
};
if (growthSettings.only !== undefined && !["lists", "migrate"].includes(growthSettings.only))
  throw new Error(`BENCH_GROWTH_ONLY must be lists or migrate, not "${growthSettings.only}"`);

const log = (message: string) => console.error(`[growth ${new Date().toISOString().slice(11, 19)}] ${message}`);
const fmt = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "–";

const LIST = "/blog/users/v1/list";
const PAGE = `${LIST}?limit=100`;
const showPath = (rows: number) => `/blog/users/v1/show/${Math.ceil(rows / 2)}`;
type Kind = "generated" | "lean";
const KINDS: Kind[] = ["generated", "lean"];

/** One autocannon round of one server, as `npm run bench` measures it. */
interface Round {
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  /** Other processes' or the hypervisor's CPU during the round, cores. */
  foreignCores: number;
  stealCores: number;
  failures: number;
}

interface Loaded {
  endpoint: string;
  path: string;
  rounds: Record<Kind, Round[]>;
  /** Medians over the rounds. */
  median: Record<Kind, Pick<Round, "rps" | "p50" | "p99" | "cpuUsPerRequest">>;
  /** generated ÷ lean req/s, median over the rounds of round i ÷ round i. */
  ratio: number;
}

interface Whole {
  times: number[];
  p50: number;
  max: number;
  bytes: number;
  /** The largest RSS growth of the server over one answer, MB. */
  growthMb: number;
}

interface Size {
  rows: number;
  seedMs: number;
  databaseMb: number;
  loads: Loaded[];
  whole: Record<Kind, Whole>;
  /** Bytes of the first page's answer. */
  pageBytes: number;
  parity: { request: string; same: boolean; detail?: string }[];
}

interface Migration {
  database: "SQLite" | "PostgreSQL";
  change: string;
  rows: number;
  /** What the migration's SQL does to the table. */
  sql: string;
  generateMs: number;
  createMs: number;
  migrateMs: number;
  /** `npm run migrate` again right after, with nothing to apply. */
  idleMigrateMs: number;
  before: { rows: number; sample: Record<string, unknown>; mb: number };
  after: { rows: number; sample: Record<string, unknown>; mb: number };
  /** Whether every row survived with its values (the sample compared, the count, the new column's values). */
  survived: boolean;
  detail: string;
}

export interface GrowthResult {
  settings: typeof growthSettings & { connections: number };
  sizes: Size[];
  migrations: Migration[];
  totalSeconds: number;
}

/** The two manifest changes, as a user writes them. */
const CHANGES = [
  {
    change:
      "add a required field with a default (`karma: { type: NUMBER, integer: true, required: true, default: 0 }`)",
    label: "add_karma",
    edit: (text: string) =>
      replaceOnce(
        text,
        "      created_at: { type: DATETIME, default: now }\n",
        "      created_at: { type: DATETIME, default: now }\n      karma: { type: NUMBER, integer: true, required: true, default: 0 }\n",
      ),
    /** The row as it must be after the change. */
    expect: (row: Record<string, unknown>) => ({ ...row, karma: 0 }),
  },
  {
    change: "rename a field (`about: { type: PARAGRAPH, renamedFrom: bio, names: { v1: bio, v2: bio } }`)",
    label: "rename_bio",
    edit: (text: string) =>
      replaceOnce(
        text,
        "      bio: PARAGRAPH\n",
        "      about: { type: PARAGRAPH, renamedFrom: bio, names: { v1: bio, v2: bio } }\n",
      ),
    expect: ({ bio, ...row }: Record<string, unknown>) => ({ ...row, about: bio }),
  },
];

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`examples/blog.yaml no longer has ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

export async function growthBenchmark(): Promise<GrowthResult> {
  const begun = performance.now();
  const { rows: sizes } = growthSettings;
  if (sizes.length === 0) throw new Error("BENCH_GROWTH_ROWS names no row count");
  log(
    `users at ${sizes.map((rows) => rows.toLocaleString("en")).join(", ")} rows; ${growthSettings.rounds} rounds × ` +
      `${growthSettings.duration} s, ${settings.connections} connections, ${growthSettings.warmup} s warm-up`,
  );
  const work = await workDir("bench-growth");
  const serverDir = join(work, "server");
  const manifest = join(work, "blog.yaml");
  const running: Server[] = [];
  try {
    await writeFile(manifest, await readFile(join(REPO, "examples", "blog.yaml"), "utf8"));
    await tablegenGenerate(manifest, serverDir);
    await npmMigrate(serverDir, "file:./empty.db");
    await transpileCeiling(serverDir);

    const results: Size[] = [];
    for (const rows of growthSettings.only === "migrate" ? [] : sizes) {
      const file = join(serverDir, `users-${rows}.db`);
      copyDatabase(join(serverDir, "empty.db"), file);
      const seedMs = seedSqlite(file, rows);
      const databaseMb = statSync(file).size / 1e6;
      log(`${rows.toLocaleString("en")} users: seeded in ${fmt(seedMs, 0)} ms, ${fmt(databaseMb, 0)} MB`);
      const servers = {} as Record<Kind, Server>;
      for (const kind of KINDS) {
        servers[kind] = await startServer({
          kind,
          serverDir,
          databaseUrl: `file:./users-${rows}.db`,
          readyPath: `${LIST}?limit=1`,
        });
        running.push(servers[kind]);
      }
      const parity = await compare(servers, rows);
      const endpoints: Endpoint[] = [
        { name: "show", method: "GET", path: showPath(rows) },
        { name: "page", method: "GET", path: PAGE },
        ...(rows <= growthSettings.loadRows ? [{ name: "list", method: "GET" as const, path: LIST }] : []),
      ];
      const loads: Loaded[] = [];
      for (const endpoint of endpoints) loads.push(await loadBoth(servers, endpoint, rows));
      const whole = {} as Record<Kind, Whole>;
      for (const kind of KINDS) whole[kind] = await wholeLists(servers[kind], rows);
      const pageBytes = Buffer.byteLength((await fetchAnswer(servers.generated, PAGE)).body);
      for (const server of running) await server.stop();
      running.length = 0;
      results.push({ rows, seedMs, databaseMb, loads, whole, pageBytes, parity });
    }

    // Migrations of the largest table: the database of the last size if it has those rows.
    const migrations: Migration[] = [];
    if (growthSettings.only !== "lists") {
      const rows = growthSettings.migrateRows;
      const file = join(serverDir, `users-${rows}.db`);
      if (!results.some((size) => size.rows === rows)) {
        copyDatabase(join(serverDir, "empty.db"), file);
        seedSqlite(file, rows);
      }
      migrations.push(...(await migrations_(sqliteDatabase(serverDir, file), manifest, serverDir)));
      if (growthSettings.postgres) migrations.push(...(await postgresMigrations(work, rows)));
    }

    const result: GrowthResult = {
      settings: { ...growthSettings, connections: settings.connections },
      sizes: results,
      migrations,
      totalSeconds: (performance.now() - begun) / 1000,
    };
    await writeFile(join(REPO, ".tmp", "bench-growth.json"), JSON.stringify(result, null, 2));
    return result;
  } finally {
    for (const server of running) await server.stop().catch(() => {});
    await removeWorkDir(work);
  }
}

/** The bench's users, numbered from 1, in one statement; ms. Leaves no WAL file, so the file can be copied. */
function seedSqlite(file: string, rows: number): number {
  const start = performance.now();
  const db = new Database(file, { fileMustExist: true });
  db.exec(usersSeedSql(rows));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return performance.now() - start;
}

/** The generated server's own `npm run migrate`, timed (ms). */
async function npmMigrate(serverDir: string, databaseUrl: string): Promise<number> {
  const start = performance.now();
  await execa("npm", ["run", "--silent", "migrate"], {
    cwd: serverDir,
    env: { DATABASE_URL: databaseUrl },
    timeout: 600_000,
  });
  return performance.now() - start;
}

// ---- loads ---------------------------------------------------------------------------------------

async function fetchAnswer(server: Pick<Server, "base">, path: string) {
  const response = await fetch(server.base + path, { headers: { "x-api-signature": KEY } });
  return { status: response.status, link: response.headers.get("link"), body: await response.text() };
}

/** The same answers from both servers: show, the first page (body and Link), the whole list when it is small. */
async function compare(servers: Record<Kind, Server>, rows: number): Promise<Size["parity"]> {
  const paths = [showPath(rows), PAGE, ...(rows <= growthSettings.loadRows ? [LIST] : [])];
  const parity: Size["parity"] = [];
  for (const path of paths) {
    const [a, b] = [await fetchAnswer(servers.generated, path), await fetchAnswer(servers.lean, path)];
    const parse = (text: string) => JSON.parse(text) as unknown;
    const same =
      a.status === 200 && a.status === b.status && a.link === b.link && isDeepStrictEqual(parse(a.body), parse(b.body));
    parity.push({
      request: `GET ${path}`,
      same,
      ...(!same && {
        detail: `${a.status} ${a.link} ${a.body.slice(0, 200)} / ${b.status} ${b.link} ${b.body.slice(0, 200)}`,
      }),
    });
    if (!same) log(`WARNING: the generated server and the lean ceiling answer GET ${path} differently`);
  }
  return parity;
}

async function loadBoth(servers: Record<Kind, Server>, endpoint: Endpoint, rows: number): Promise<Loaded> {
  for (const kind of KINDS) await load(servers[kind], endpoint, growthSettings.warmup, `growth-${kind}-warmup`);
  const rounds: Record<Kind, Round[]> = { generated: [], lean: [] };
  for (let round = 1; round <= growthSettings.rounds; round++) {
    for (const kind of KINDS) {
      const result = await load(servers[kind], endpoint, growthSettings.duration, `growth-${kind}-${round}`);
      const cores = (ms: number) => ms / 1000 / result.duration;
      const entry: Round = {
        rps: result.rps,
        p50: result.p50,
        p99: result.p99,
        cpuUsPerRequest: (result.serverCpuMs * 1000) / Math.max(1, result.responses),
        foreignCores: Math.max(0, cores(result.machineBusyMs - result.serverCpuMs - result.loadCpuMs)),
        stealCores: cores(result.stealMs),
        failures: result.non2xx + result.errors + result.timeouts,
      };
      rounds[kind].push(entry);
      log(
        `${rows.toLocaleString("en")} rows ${endpoint.name} round ${round} ${kind.padEnd(9)} ${fmt(entry.rps, 0).padStart(6)} req/s ` +
          `p50 ${fmt(entry.p50, 2)} ms p99 ${fmt(entry.p99, 2)} ms ${fmt(entry.cpuUsPerRequest, 0)} µs CPU/req; other ` +
          `${fmt(entry.foreignCores, 2)} steal ${fmt(entry.stealCores, 2)} cores` +
          (entry.failures > 0 ? ` WARNING: ${entry.failures} failed (first ${result.firstBadStatus})` : ""),
      );
    }
  }
  const middle = (kind: Kind) => ({
    rps: median(rounds[kind].map((r) => r.rps)),
    p50: median(rounds[kind].map((r) => r.p50)),
    p99: median(rounds[kind].map((r) => r.p99)),
    cpuUsPerRequest: median(rounds[kind].map((r) => r.cpuUsPerRequest)),
  });
  return {
    endpoint: endpoint.name,
    path: endpoint.path,
    rounds,
    median: { generated: middle("generated"), lean: middle("lean") },
    ratio: median(rounds.generated.map((r, i) => r.rps / rounds.lean[i]!.rps)),
  };
}

/**
 * The whole list, one request at a time on fresh connections, after a warm-up of 5 (none for a
 * table above 100,000 rows: an answer of seconds warms itself up, and the loads before warmed the
 * server).
 */
async function wholeLists(server: Server, rows: number): Promise<Whole> {
  const big = rows > 100_000;
  for (let i = 0; i < (big ? 0 : 5); i++) await wholeList(server, LIST);
  const times: number[] = [];
  let bytes = 0;
  let growthMb = 0;
  const deadline = performance.now() + growthSettings.listSeconds * 1000;
  const least = big ? 2 : 3;
  while (times.length < growthSettings.listRequests && (times.length < least || performance.now() < deadline)) {
    const answer = await wholeList(server, LIST);
    times.push(answer.ms);
    bytes = answer.bytes;
    growthMb = Math.max(growthMb, answer.growthMb);
  }
  const whole = { times, p50: median(times), max: Math.max(...times), bytes, growthMb };
  log(
    `${rows.toLocaleString("en")} rows whole list ${server.kind.padEnd(9)} ${fmt(whole.p50, 1)} ms to the last byte ` +
      `(max ${fmt(whole.max, 1)}, ${times.length} requests), ${fmt(bytes / 1e6, 1)} MB, RSS +${fmt(growthMb, 0)} MB`,
  );
  return whole;
}

// ---- migrations ----------------------------------------------------------------------------------

/** What the migrations need of a database: a URL for the server, its rows, a sample row, its size. */
interface MigratedDatabase {
  label: Migration["database"];
  url: string;
  rows: number;
  count: () => Promise<number>;
  /** Rows whose column holds the value (the added field's default). */
  countWhere: (column: string, value: number) => Promise<number>;
  sample: () => Promise<Record<string, unknown>>;
  sizeMb: () => Promise<number>;
}

function sqliteDatabase(serverDir: string, file: string): MigratedDatabase {
  const rows = Number(/users-(\d+)\.db$/.exec(file)![1]);
  const read = <T>(run: (db: Database.Database) => T): T => {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return run(db);
    } finally {
      db.close();
    }
  };
  return {
    label: "SQLite",
    url: `file:./${file.slice(serverDir.length + 1)}`,
    rows,
    count: async () => read((db) => (db.prepare(`SELECT count(*) AS n FROM "users"`).get() as { n: number }).n),
    countWhere: async (column, value) =>
      read(
        (db) => (db.prepare(`SELECT count(*) AS n FROM "users" WHERE "${column}" = ?`).get(value) as { n: number }).n,
      ),
    sample: async () =>
      read(
        (db) => db.prepare(`SELECT * FROM "users" WHERE "id" = ?`).get(Math.ceil(rows / 2)) as Record<string, unknown>,
      ),
    sizeMb: async () => statSync(file).size / 1e6,
  };
}

/** Both changes, one after the other, on a migrated and seeded database. */
async function migrations_(database: MigratedDatabase, manifest: string, serverDir: string): Promise<Migration[]> {
  const done: Migration[] = [];
  for (const { change, label, edit, expect } of CHANGES) {
    const before = { rows: await database.count(), sample: await database.sample(), mb: await database.sizeMb() };
    await writeFile(manifest, edit(await readFile(manifest, "utf8")));
    const env = { DATABASE_URL: database.url };
    let start = performance.now();
    await execa(process.execPath, [TABLEGEN, "generate", "--manifest", manifest, "--out", serverDir], {
      cwd: REPO,
      timeout: 120_000,
    });
    const generateMs = performance.now() - start;
    start = performance.now();
    // The URL is the server's, relative to its directory: tablegen migrate runs there.
    const { stdout } = await execa(
      process.execPath,
      [TABLEGEN, "migrate", "--manifest", manifest, "--out", ".", "--create-only", "--name", label],
      { cwd: serverDir, env, timeout: 300_000 },
    );
    const createMs = performance.now() - start;
    const folder = /prisma\/migrations\/(\d+_\w+)/.exec(stdout)?.[1];
    if (!folder) throw new Error(`tablegen migrate --create-only wrote no migration:\n${stdout}`);
    const sqlText = await readFile(join(serverDir, "prisma", "migrations", folder, "migration.sql"), "utf8");
    const migrateMs = await npmMigrate(serverDir, database.url);
    const idleMigrateMs = await npmMigrate(serverDir, database.url);
    const after = { rows: await database.count(), sample: await database.sample(), mb: await database.sizeMb() };
    const problems: string[] = [];
    if (after.rows !== before.rows) problems.push(`${before.rows} rows before, ${after.rows} after`);
    const expected = expect(before.sample);
    if (!isDeepStrictEqual(after.sample, expected))
      problems.push(`sample row ${JSON.stringify(after.sample)}, expected ${JSON.stringify(expected)}`);
    if (label === "add_karma") {
      const defaulted = await database.countWhere("karma", 0);
      if (defaulted !== after.rows) problems.push(`${defaulted} of ${after.rows} rows hold the default`);
    }
    const migration: Migration = {
      database: database.label,
      change,
      rows: before.rows,
      sql: describeSql(sqlText),
      generateMs,
      createMs,
      migrateMs,
      idleMigrateMs,
      before,
      after,
      survived: problems.length === 0,
      detail:
        problems.length === 0
          ? `${after.rows.toLocaleString("en")} rows; row ${String(before.sample.id)} as before${label === "add_karma" ? ", every row's karma 0" : ", bio now about"}`
          : problems.join("; "),
    };
    log(
      `${database.label} ${label}: ${migration.sql}; tablegen generate ${fmt(generateMs, 0)} ms, migrate --create-only ` +
        `${fmt(createMs, 0)} ms, npm run migrate ${fmt(migrateMs, 0)} ms (nothing to apply: ${fmt(idleMigrateMs, 0)} ms); ` +
        `${fmt(before.mb, 0)} → ${fmt(after.mb, 0)} MB; ${migration.survived ? "data survived" : `DATA DIFFERS: ${migration.detail}`}`,
    );
    done.push(migration);
  }
  return done;
}

/** What a migration's SQL does to the table, in a few words (tablegen's wrapping left out). */
function describeSql(sql: string): string {
  if (sql.includes("-- RedefineTables")) {
    const table = /^CREATE TABLE "new_(\w+)"/m.exec(sql)?.[1];
    return `rebuilds the table: \`CREATE TABLE "new_${table}"\`, \`INSERT INTO "new_${table}" … SELECT … FROM "${table}"\` (every row copied), \`DROP TABLE\`, \`RENAME\`, indexes rebuilt (Prisma's RedefineTables)`;
  }
  return sql
    .split(";")
    .map((statement) =>
      statement
        .replace(/--[^\n]*\n/g, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((statement) => /^(ALTER|CREATE|DROP|INSERT|UPDATE|DELETE)\b/.test(statement))
    .filter((statement) => !/_tablegen_foreign_key_check|_prisma_migrations/.test(statement))
    .map((statement) => `\`${statement}\``)
    .join(", ");
}

async function postgresMigrations(work: string, rows: number): Promise<Migration[]> {
  const bin = findPostgres();
  if (!bin) {
    log("PostgreSQL binaries not found: its migrations are left out");
    return [];
  }
  const postgres = await startPostgres(bin);
  try {
    const admin = new pg.Client({ connectionString: `${postgres.url}/postgres` });
    await admin.connect();
    await admin.query("CREATE DATABASE growth");
    await admin.end();
    const url = `${postgres.url}/growth`;
    const dir = join(work, "postgresql");
    const manifest = join(dir, "blog.yaml");
    const serverDir = join(dir, "server");
    const text = await readFile(join(REPO, "examples", "blog.yaml"), "utf8");
    await mkdir(dir, { recursive: true });
    await writeFile(manifest, replaceOnce(text, "database: sqlite", "database: postgresql"));
    await tablegenGenerate(manifest, serverDir);
    await npmMigrate(serverDir, url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const start = performance.now();
      await client.query(postgresUsersSeedSql(rows));
      await client.query("VACUUM ANALYZE users");
      log(`PostgreSQL: ${rows.toLocaleString("en")} users seeded in ${fmt(performance.now() - start, 0)} ms`);
      const one = async (sql: string, values: unknown[] = []) =>
        (await client.query(sql, values)).rows[0] as Record<string, unknown>;
      return await migrations_(
        {
          label: "PostgreSQL",
          url,
          rows,
          count: async () => Number((await one(`SELECT count(*) AS n FROM "users"`)).n),
          countWhere: async (column, value) =>
            Number((await one(`SELECT count(*) AS n FROM "users" WHERE "${column}" = $1`, [value])).n),
          sample: async () => {
            const row = await one(`SELECT * FROM "users" WHERE "id" = $1`, [Math.ceil(rows / 2)]);
            // Date objects compare by value once they are text.
            return Object.fromEntries(
              Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
            );
          },
          sizeMb: async () => Number((await one(`SELECT pg_total_relation_size('users') AS n`)).n) / 1e6,
        },
        manifest,
        serverDir,
      );
    } finally {
      await client.end();
    }
  } finally {
    await postgres.stop();
  }
}

// ---- report --------------------------------------------------------------------------------------

export function renderGrowth(result: GrowthResult): string[] {
  const { sizes, migrations } = result;
  const s = result.settings;
  const base = sizes[0]!; // undefined with BENCH_GROWTH_ONLY=migrate: then no size is rendered
  const load = (size: Size, endpoint: string) => size.loads.find((entry) => entry.endpoint === endpoint);
  const rowsOf = (size: Size) => size.rows.toLocaleString("en");
  const lines: string[] = [];
  if (sizes.length > 0) {
    const endpointTable = (endpoint: string, title: string) => [
      ``,
      title,
      ``,
      `| rows | generated req/s | p50 ms | p99 ms | CPU µs/req | lean req/s | p50 ms | p99 ms | CPU µs/req | gen ÷ lean req/s | lean ÷ gen CPU/req |`,
      `|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|`,
      ...sizes.flatMap((size) => {
        const entry = load(size, endpoint);
        if (!entry) return [];
        const { generated: g, lean: l } = entry.median;
        return [
          `| ${rowsOf(size)} | ${fmt(g.rps, 0)} | ${fmt(g.p50, 2)} | ${fmt(g.p99, 2)} | ${fmt(g.cpuUsPerRequest, 0)} | ` +
            `${fmt(l.rps, 0)} | ${fmt(l.p50, 2)} | ${fmt(l.p99, 2)} | ${fmt(l.cpuUsPerRequest, 0)} | **${fmt(entry.ratio, 2)}** | ` +
            `${fmt(l.cpuUsPerRequest / g.cpuUsPerRequest, 2)} |`,
        ];
      }),
    ];
    // Cost per request at N rows ÷ at the smallest size: 1.00 is flat.
    const grow = (size: Size, endpoint: string, kind: Kind) => {
      const [now, then] = [load(size, endpoint), load(base, endpoint)];
      return now && then
        ? `${fmt(then.median[kind].rps / now.median[kind].rps, 2)} / ${fmt(now.median[kind].cpuUsPerRequest / then.median[kind].cpuUsPerRequest, 2)}`
        : "–";
    };
    lines.push(
      ``,
      `### How cost grows with the table (users of examples/blog.yaml, SQLite)`,
      ``,
      `The generated server and the lean ceiling on the same database file per size (the bench's users, numbered on; ` +
        `${sizes.map((size) => `${rowsOf(size)} rows: ${fmt(size.databaseMb, 1)} MB, seeded in ${fmt(size.seedMs / 1000, 1)} s`).join("; ")}). ` +
        `Per endpoint a ${s.warmup} s warm-up of each, then ${s.rounds} rounds of generated, lean, ${s.duration} s each ` +
        `(autocannon, ${s.connections} connections); medians over the rounds; gen ÷ lean: the median of round i ÷ round i. ` +
        `CPU µs/req (the server's user + system time over its answers) is what other people's processes on the machine blur least.`,
      ...endpointTable("show", `show: \`/blog/users/v1/show/<the middle row>\``),
      ...endpointTable(
        "page",
        `the first page: \`/blog/users/v1/list?limit=100\` (${sizes.map((size) => `${fmt(size.pageBytes / 1000, 1)} kB`).join(" / ")}; ` +
          `a Link to the next page from 10,000 rows on)`,
      ),
      ...endpointTable(
        "list",
        `the whole list under load, up to ${s.loadRows.toLocaleString("en")} rows (above, ${s.connections} answers of up to 290 MB at once are no load anyone serves)`,
      ),
      ``,
      `The whole list one request at a time (each on a fresh connection; after 5 of warm-up up to 100,000 rows; up to ` +
        `${s.listRequests} requests or ${s.listSeconds} s, at least 3, 2 above 100,000 rows): time to the last byte, median and ` +
        `slowest; RSS growth is the server's largest over one answer.`,
      ``,
      `| rows | MB | generated ms p50 | max | MB/s | µs per row | RSS growth MB | lean ms p50 | max | lean RSS growth MB | gen ÷ lean time |`,
      `|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|`,
      ...sizes.map((size) => {
        const { generated: g, lean: l } = size.whole;
        return (
          `| ${rowsOf(size)} | ${fmt(g.bytes / 1e6, 2)} | ${fmt(g.p50, 1)} | ${fmt(g.max, 1)} | ${fmt(g.bytes / 1e3 / g.p50, 0)} | ` +
          `${fmt((g.p50 * 1000) / size.rows, 2)} | ${fmt(g.growthMb, 0)} | ${fmt(l.p50, 1)} | ${fmt(l.max, 1)} | ${fmt(l.growthMb, 0)} | ${fmt(g.p50 / l.p50, 2)} |`
        );
      }),
      ``,
      `How the cost of one request grows against ${rowsOf(base)} rows: time per request (req/s at ${rowsOf(base)} ÷ req/s) / ` +
        `CPU µs per request (÷ at ${rowsOf(base)}); 1.00 / 1.00 is flat. The whole list: time to the last byte ÷ at ${rowsOf(base)}, beside the rows' ratio.`,
      ``,
      `| rows | show, generated | show, lean | page, generated | page, lean | whole list, generated | lean | rows × |`,
      `|--:|--:|--:|--:|--:|--:|--:|--:|`,
      ...sizes
        .slice(1)
        .map(
          (size) =>
            `| ${rowsOf(size)} | ${grow(size, "show", "generated")} | ${grow(size, "show", "lean")} | ${grow(size, "page", "generated")} | ` +
            `${grow(size, "page", "lean")} | ${fmt(size.whole.generated.p50 / base.whole.generated.p50, 0)} | ` +
            `${fmt(size.whole.lean.p50 / base.whole.lean.p50, 0)} | ${fmt(size.rows / base.rows, 0)} |`,
        ),
    );
    const differ = sizes.flatMap((size) =>
      size.parity
        .filter((entry) => !entry.same)
        .map((entry) => `${rowsOf(size)} rows ${entry.request}: ${entry.detail}`),
    );
    lines.push(
      ``,
      differ.length === 0
        ? `Parity: the two servers gave the same answers (status, JSON body, Link) to ${sizes.reduce((n, size) => n + size.parity.length, 0)} checks (show, the page, the whole list up to ${s.loadRows.toLocaleString("en")} rows).`
        : `Parity: **answers differ**: ${differ.join("; ")}`,
    );
    const failed = sizes.flatMap((size) =>
      size.loads.flatMap((entry) =>
        KINDS.flatMap((kind) =>
          entry.rounds[kind].filter((r) => r.failures > 0).map(() => `${rowsOf(size)} ${entry.endpoint} ${kind}`),
        ),
      ),
    );
    if (failed.length > 0) lines.push(``, `Rounds with failed requests: ${failed.join(", ")}.`);
    const disturbed = sizes.flatMap((size) =>
      size.loads.flatMap((entry) =>
        KINDS.flatMap((kind) =>
          entry.rounds[kind]
            .filter((r) => r.foreignCores > 0.15 || r.stealCores > 0.15)
            .map(() => `${rowsOf(size)} ${entry.endpoint} ${kind}`),
        ),
      ),
    );
    if (disturbed.length > 0)
      lines.push(``, `Disturbed rounds (> 0.15 cores of other processes or steal): ${disturbed.join(", ")}.`);
    lines.push(
      ``,
      `Every round (req/s, generated | lean): ` +
        sizes
          .map((size) =>
            size.loads
              .map(
                (entry) =>
                  `${rowsOf(size)} ${entry.endpoint} ${entry.rounds.generated.map((r) => fmt(r.rps, 0)).join("/")} | ${entry.rounds.lean.map((r) => fmt(r.rps, 0)).join("/")}`,
              )
              .join("; "),
          )
          .join("; ") +
        `.`,
    );
  }
  if (migrations.length > 0) {
    lines.push(
      ``,
      `### \`migrate\` of a ${migrations[0]!.rows.toLocaleString("en")}-row table`,
      ``,
      `The manifest changed as a user changes it, then \`tablegen generate\`, \`tablegen migrate --create-only\` (writes the ` +
        `migration; counts the rows at risk on the live database) and the server's \`npm run migrate\` (SQLite: \`prisma migrate deploy\`, ` +
        `its transpile, WAL mode; PostgreSQL: \`prisma migrate deploy\`), timed, then \`npm run migrate\` once more with nothing to ` +
        `apply (its fixed cost: Prisma's start-up). Size: the database file (SQLite), \`pg_total_relation_size('users')\` (PostgreSQL).`,
      ``,
      `| database | change | the migration's SQL | generate ms | migrate --create-only ms | \`npm run migrate\` ms | nothing to apply ms | difference ms | MB before → after | data |`,
      `|---|---|---|--:|--:|--:|--:|--:|--:|---|`,
      ...migrations.map(
        (m) =>
          `| ${m.database} | ${m.change} | ${m.sql.replaceAll("|", "\\|")} | ${fmt(m.generateMs, 0)} | ${fmt(m.createMs, 0)} | **${fmt(m.migrateMs, 0)}** | ` +
          `${fmt(m.idleMigrateMs, 0)} | ${fmt(m.migrateMs - m.idleMigrateMs, 0)} | ${fmt(m.before.mb, 0)} → ${fmt(m.after.mb, 0)} | ` +
          `${m.survived ? "survived" : "**differs**"}: ${m.detail} |`,
      ),
    );
  }
  lines.push(``, `The growth benchmark took ${fmt(result.totalSeconds, 0)} s.`);
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await growthBenchmark();
  console.log(renderGrowth(result).join("\n"));
}
