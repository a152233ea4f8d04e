// The generation benchmark: a synthetic manifest of 200 tables (every field type, references
// between neighbours, some uuid ids, two versions, one custom query per 20 tables), timed two ways:
//   - end to end, `node bin/tablegen.js generate --manifest … --out …` as a user runs it, into a
//     fresh directory (which includes the first migration), and
//     again over its own output (nothing to write, no migration);
//   - in process, phase by phase: read + validate + model, emit (templates → in-memory tree),
//     write the tree, write the first migration.
// How its cost grows: the CLI alone (fresh, then over its own output) on manifests of 50, 200 and 1,000 tables (BENCH_GENERATION_TABLES, a comma list: `50,200` leaves 1,000 out), generationGrowth().
// Run alone with `npx tsx bench/synthetic.ts [tables…]`; bench/run.ts calls both.
import { readFile, rm, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { basename, join } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { stringify } from "yaml";
import { loadSources, readManifestFile } from "../src/cli/host.ts";
import { diffSchemas } from "../src/cli/prisma/run.ts";
import { writeOutput } from "../src/cli/writer.ts";
import { emitServer } from "../src/emit/index.ts";
import { firstMigrationSql } from "../src/emit/first-migration.ts";
import { emitMigration, migrationFolderName } from "../src/emit/migration.ts";
import { emitPrismaSchema } from "../src/emit/prisma-schema.ts";
import { targetFor } from "../src/targets/index.ts";
import { median, removeWorkDir, REPO, settings, TABLEGEN, tablegenGenerate, workDir } from "./lib.ts";

const ON_DELETE = ["cascade", "restrict", "setNull"] as const;

const tableName = (i: number) => `table_${String(i).padStart(3, "0")}`;

/** A manifest object with `tables` tables (default 200) and one custom query per 20 tables. */
export function syntheticManifest(tables = 200): Record<string, unknown> {
  const manifestTables: Record<string, unknown> = {};
  for (let i = 1; i <= tables; i++) {
    const fields: Record<string, unknown> = {
      name: { type: "TEXT", required: true },
      code: { type: "TEXT", required: true, unique: true, maxLength: 40 },
      notes: "PARAGRAPH",
      amount: "NUMBER",
      quantity: { type: "NUMBER", integer: true, default: 0 },
      active: { type: "BOOLEAN", default: true },
      created_at: { type: "DATETIME", default: "now" },
    };
    if (i % 3 === 0) fields.email = { type: "EMAIL", unique: true };
    if (i % 4 === 0) fields.phone = "PHONE";
    if (i > 1) {
      const onDelete = ON_DELETE[i % 3]!;
      fields[`${tableName(i - 1)}_id`] = {
        type: "NUMBER",
        required: onDelete !== "setNull",
        references: tableName(i - 1),
        onDelete,
      };
    }
    manifestTables[tableName(i)] = {
      ...(i % 10 === 0 && { id: "uuid" }),
      ...(i % 5 === 0 && { versions: ["v1"] }),
      fields,
    };
  }
  const queries: Record<string, unknown> = {};
  for (let i = 1; i + 1 <= tables; i += 20) {
    const [parent, child] = [tableName(i), tableName(i + 1)];
    queries[`children_of_${parent}`] = {
      params: { name: "TEXT" },
      sql: [
        `SELECT p.id AS parent_id, p.name AS parent_name, c.id AS child_id, c.name AS child_name, c.active`,
        `FROM ${parent} p JOIN ${child} c ON c.${parent}_id = p.id`,
        `WHERE p.name = :name`,
        `ORDER BY c.id`,
      ].join("\n"),
    };
  }
  return { project: "synthetic", database: "sqlite", versions: ["v1", "v2"], tables: manifestTables, queries };
}

export interface GenerationTimes {
  tables: number;
  files: number;
  /** CLI, fresh output directory: each run's wall time, ms. */
  cliFresh: number[];
  /** CLI over its own output (no change, no migration), ms. */
  cliUnchanged: number[];
  /** `tablegen --version`: the CLI's own start-up (node, its compiled dist/ or tsx, commander), ms. */
  cliStartup: number[];
  /** In process, the first read and emit (cold: module code, template compilation), ms. */
  readFirst: number;
  emitFirst: number;
  /** In process, medians over runs after a warm-up, ms. */
  read: number;
  emit: number;
  /** In process, once each into a fresh directory, ms. */
  write: number;
  migration: number;
}

/** The manifest sizes whose generation `npm run bench` times (BENCH_GENERATION_TABLES, default 50,200,1000). */
export const GENERATION_SIZES = (process.env.BENCH_GENERATION_TABLES ?? "50,200,1000")
  .split(",")
  .map((size) => Number(size.trim()))
  .filter((size) => Number.isInteger(size) && size > 0);

/** Issue 18's targets for `generate` into a fresh directory, by number of tables (ms). */
export const GENERATION_TARGETS: Record<number, number | undefined> = { 200: 1500, 1000: 5000 };

export interface GenerationRun {
  tables: number;
  /** Files generation owns (`.tablegen-files`), and their bytes. */
  files: number;
  bytes: number;
  /** CLI, fresh output directory, and over its own output: each run's wall time, ms. */
  cliFresh: number[];
  cliUnchanged: number[];
  /**
   * The same runs' CPU time (user + system, every thread of the CLI's process), ms: on a machine
   * others share, the figure that their load moves least.
   */
  cpuFresh: number[];
  cpuUnchanged: number[];
  /** The 1-minute load average before each fresh run (2 cores: above 2, something else competed). */
  load: number[];
}

/** `tablegen generate` of the synthetic manifest at each size, `runs` times fresh and `runs` times over its output. */
export async function generationGrowth(
  sizes = GENERATION_SIZES,
  runs = settings.generations,
): Promise<GenerationRun[]> {
  const results: GenerationRun[] = [];
  for (const tables of sizes) {
    const dir = await workDir(`bench-growth-${tables}`);
    try {
      const manifest = join(dir, "tablegen.yaml");
      await writeFile(manifest, stringify(syntheticManifest(tables)));
      const run: GenerationRun = {
        tables,
        files: 0,
        bytes: 0,
        cliFresh: [],
        cliUnchanged: [],
        cpuFresh: [],
        cpuUnchanged: [],
        load: [],
      };
      for (let i = 1; i <= runs; i++) {
        run.load.push(loadavg()[0]!);
        const { wall, cpu } = await timedGenerate(manifest, join(dir, `cli-${i}`));
        run.cliFresh.push(wall);
        run.cpuFresh.push(cpu);
      }
      for (let i = 1; i <= runs; i++) {
        const { wall, cpu } = await timedGenerate(manifest, join(dir, "cli-1"));
        run.cliUnchanged.push(wall);
        run.cpuUnchanged.push(cpu);
      }
      const listing = await readFile(join(dir, "cli-1", ".tablegen-files"), "utf8");
      const paths = listing
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split(" ")[0]!);
      run.files = paths.length;
      for (const path of paths) run.bytes += (await readFile(join(dir, "cli-1", path))).length;
      results.push(run);
    } finally {
      await removeWorkDir(dir);
    }
  }
  return results;
}

/**
 * `tablegen generate` as a user runs it (`node bin/tablegen.js generate`), its wall time and its
 * process's CPU time, ms: a module preloaded into the CLI's process writes `process.cpuUsage()`
 * (user and system time of all its threads) to a file as it exits.
 */
async function timedGenerate(manifest: string, out: string): Promise<{ wall: number; cpu: number }> {
  const usage = `${out}.cpu.json`;
  const preload = `data:text/javascript,${encodeURIComponent(
    `import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(${JSON.stringify(usage)}, JSON.stringify(process.cpuUsage())));`,
  )}`;
  const start = performance.now();
  await execa(process.execPath, ["--import", preload, TABLEGEN, "generate", "--manifest", manifest, "--out", out], {
    cwd: REPO,
    timeout: 120_000,
  });
  const wall = performance.now() - start;
  const { user, system } = JSON.parse(await readFile(usage, "utf8")) as { user: number; system: number };
  await rm(usage);
  return { wall, cpu: (user + system) / 1000 };
}

export async function generationBenchmark(tables = 200, runs = settings.generations): Promise<GenerationTimes> {
  const dir = await workDir("bench-synthetic");
  try {
    const manifest = join(dir, "tablegen.yaml");
    await writeFile(manifest, stringify(syntheticManifest(tables)));

    const cliFresh: number[] = [];
    for (let run = 1; run <= runs; run++) cliFresh.push(await tablegenGenerate(manifest, join(dir, `cli-${run}`)));
    const cliUnchanged: number[] = [];
    for (let run = 1; run <= runs; run++) cliUnchanged.push(await tablegenGenerate(manifest, join(dir, "cli-1")));

    const cliStartup: number[] = [];
    for (let run = 1; run <= runs; run++) {
      const start = performance.now();
      await execa(process.execPath, [TABLEGEN, "--version"], { cwd: REPO, timeout: 60_000 });
      cliStartup.push(performance.now() - start);
    }

    // In process: the first run (cold: template compilation, first calls), then medians of warm runs.
    const reads: number[] = [];
    const emits: number[] = [];
    const options = { manifestName: basename(manifest), sources: loadSources() };
    let start = performance.now();
    let parsed = readManifestFile(manifest);
    const readFirst = performance.now() - start;
    start = performance.now();
    let tree = await emitServer(parsed.model, options);
    const emitFirst = performance.now() - start;
    for (let run = 0; run < Math.max(3, runs); run++) {
      start = performance.now();
      parsed = readManifestFile(manifest);
      reads.push(performance.now() - start);
      start = performance.now();
      tree = await emitServer(parsed.model, options);
      emits.push(performance.now() - start);
    }
    const out = join(dir, "in-process");
    start = performance.now();
    writeOutput(out, { generated: tree });
    const write = performance.now() - start;
    // The first migration alone: its SQL written from the model, as generate does (a Prisma process
    // only for what src/emit/first-migration.ts cannot write, which generate overlaps with emitting).
    start = performance.now();
    const target = targetFor(parsed.model.database);
    const schema = emitPrismaSchema(parsed.model);
    const sql = firstMigrationSql(parsed.model) ?? (await diffSchemas(undefined, schema, target));
    const name = migrationFolderName("init", [], new Date());
    writeOutput(out, {
      created: await emitMigration({ name, sql, schema, manifest: parsed.manifest }, target, true, loadSources()),
    });
    const migration = performance.now() - start;

    return {
      tables,
      files: tree.size,
      cliFresh,
      cliUnchanged,
      cliStartup,
      readFirst,
      emitFirst,
      read: median(reads),
      emit: median(emits),
      write,
      migration,
    };
  } finally {
    await removeWorkDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2).map(Number);
  console.log(JSON.stringify(await generationGrowth(sizes.length > 0 ? sizes : GENERATION_SIZES), null, 2));
}
