import { existsSync, readFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { confirm } from "@inquirer/prompts";
import { emitServer } from "../emit/index.ts";
import { emitMigration, MIGRATIONS, migrationFolderName } from "../emit/migration.ts";
import { emitPrismaSchema } from "../emit/prisma-schema.ts";
import { UserError } from "../errors.ts";
import type { Database, RawManifest } from "../manifest/schema.ts";
import type { Model } from "../model/types.ts";
import { changesOldServersMayFailOn, planMigration, type MigrationPlan, type Risk } from "../migrate/plan.ts";
import { explainFailure } from "../migrate/failures.ts";
import { describeRisk, riskCountSql } from "../migrate/risks.ts";
import { schemaUpdates } from "../migrate/schema-updates.ts";
import { targetFor, type Target } from "../targets/index.ts";
import { quote } from "../targets/sql.ts";
import type { FileTree } from "../tree/file-tree.ts";
import { afterMigrations, countRows, forgetFailedMigrations, migrationAdapter, throughPooler } from "./database.ts";
import { migrationUrlFor } from "./env.ts";
import {
  checkedModel,
  existingMigrations,
  latestSchema,
  latestSnapshot,
  loadSources,
  manifestWarnings,
  readManifest,
} from "./host.ts";
import { applyMigrations, diffSchemas } from "./prisma/engine.ts";
import { compareTree, previousOutput, removeCreated, writeOutput } from "./writer.ts";

export interface MigrateOptions {
  manifest: string;
  out: string;
  name?: string;
  createOnly?: boolean;
  acceptDataLoss?: boolean;
}

/** `tablegen migrate`: a migration for the manifest's changes, checked for data loss, then applied. */
export async function migrate(
  options: MigrateOptions,
  interactive: boolean,
  log: (line: string) => void,
): Promise<void> {
  const compiled = await readManifest(options.manifest);
  const { manifest, model } = compiled;
  for (const warning of manifestWarnings(compiled, options.manifest)) log(warning);
  const target = targetFor(model.database);
  const outDir = resolve(options.out);
  const shown = relative(process.cwd(), outDir) || ".";
  if (!existsSync(join(outDir, "prisma", "schema.prisma"))) {
    throw new UserError(`${shown}: no generated server here; run "tablegen generate" first`);
  }
  // The custom queries are prepared in a scratch database (before the database is touched), which
  // describes their rows to the emitters.
  const generated = await emitServer(await checkedModel(compiled, options.manifest), {
    manifestName: basename(options.manifest),
    sources: loadSources(),
    reuse: previousOutput(outDir),
  });
  const stale = compareTree(outDir, generated);
  if (stale.length > 0)
    log(`Warning: ${shown} is not up to date with ${options.manifest}; run "tablegen generate" too.`);

  const found = migrationUrlFor(options.manifest);
  const url = found?.url ?? target.implicitDatabaseUrl;
  if (!url && !options.createOnly)
    throw new UserError("DATABASE_URL is not set, in the environment or in the .env beside the manifest");
  // Through a pooler in transaction mode Prisma's migration lock would wait forever: refused at once.
  if (found && !options.createOnly && (await throughPooler(model.database, found.url))) {
    throw new UserError(
      found.variable === "DIRECT_DATABASE_URL"
        ? `DIRECT_DATABASE_URL (from ${found.from}) leads through a connection pooler, which migrations cannot go through: set it to the database's own address`
        : `DATABASE_URL (from ${found.from}) leads through a connection pooler, which migrations cannot go through: set DIRECT_DATABASE_URL to the database's own address (the server keeps DATABASE_URL)`,
    );
  }

  const existing = existingMigrations(outDir);
  const plan = migrationPlan(outDir, compiled);
  if (plan.problems.length > 0)
    throw new UserError(`${options.manifest}: cannot migrate:\n${plan.problems.map((line) => `  ${line}`).join("\n")}`);
  await confirmDataLoss(plan, model.database, url, outDir, options.acceptDataLoss === true, interactive);

  const schema = emitPrismaSchema(model);
  const { sql: statements, updates } = await migrationSql(plan, target, schema, latestSchema(outDir));
  // What this tablegen writes differently for the previous manifest is migrated too, and said.
  const changes = [...plan.changes, ...updates];
  // A change the database does not see (a maxLength widened on SQLite, TEXT made EMAIL) still gets
  // a migration: its tablegen.json is the manifest last applied, which the next change is judged by.
  const sql =
    statements ??
    (changes.length > 0
      ? "-- No statement: the database's schema stays as it is; this migration records the manifest.\n"
      : undefined);
  let written: FileTree | undefined;
  if (sql === undefined) {
    log("No changes to the database schema: no migration written.");
  } else {
    const label = options.name ?? plan.changes[0] ?? (updates.length > 0 ? "tablegen update" : "migration");
    const name = migrationFolderName(label, existing, new Date());
    written = await emitMigration({ name, sql, schema, manifest }, target, existing.length === 0, loadSources());
    writeOutput(outDir, { created: written });
    log(`Wrote ${relative(process.cwd(), join(outDir, MIGRATIONS, name))}:`);
    for (const change of changes) log(`  ${change}`);
  }
  if (options.createOnly || !url) return;
  const breaking = written ? changesOldServersMayFailOn(changes) : [];
  if (breaking.length > 0)
    log(
      `Note: until it is restarted onto the new schema, a server still running the previous code may fail on: ${breaking.join("; ")}.`,
    );

  // A migrate stopped while a migration ran left its row unfinished, which Prisma refuses to go past.
  const interrupted = await forgetFailedMigrations(model.database, url, outDir);
  if (interrupted.length > 0) {
    log(
      `Recovered: ${interrupted.join(", ")} had started and not finished (a migrate was stopped while it ran); ` +
        "its transaction was rolled back, so the database was as before it, and it is applied now.",
    );
  }
  try {
    await applyMigrations(
      readFileSync(join(outDir, "prisma", "schema.prisma"), "utf8"),
      join(outDir, MIGRATIONS),
      await migrationAdapter(model.database, url, outDir),
    );
  } catch (error) {
    const failed = await forgetFailedMigrations(model.database, url, outDir);
    if (written) removeCreated(outDir, written);
    const reason = explainFailure((error as Error).message.replace(/^prisma migrate deploy failed: /, ""), plan, model);
    if (failed.length === 0) throw new UserError(`no migration was applied: ${reason}`);
    throw new UserError(
      `the migration ${failed.join(", ")} failed and was rolled back, the database is unchanged: ${reason}`,
    );
  }
  afterMigrations(model.database, url, outDir);
  log(`Applied pending migrations to ${redactPassword(url)}.`);
}

/** What a migrate would do, before it writes or applies anything: its plan, and the risks that touch rows. */
export interface MigrationPreview {
  plan: MigrationPlan;
  /** The risks that would lose data, each with its rows (undefined: not counted) and as migrate lists it. */
  risks: CountedRisk[];
  /** The database migrate applies to, if it has one. */
  url: string | undefined;
}

export interface CountedRisk {
  risk: Risk;
  rows: number | undefined;
  text: string;
}

/**
 * The plan of `tablegen migrate` without its effects (the studio's Changes page): the same plan
 * from the latest migration's manifest, and its risks counted on the live database when it can be
 * reached. The manifest is read and checked as migrate reads it.
 */
export async function previewMigration(options: Pick<MigrateOptions, "manifest" | "out">): Promise<MigrationPreview> {
  const compiled = await readManifest(options.manifest);
  const outDir = resolve(options.out);
  const url = migrationUrlFor(options.manifest)?.url ?? targetFor(compiled.model.database).implicitDatabaseUrl;
  const plan = migrationPlan(outDir, compiled);
  return { plan, risks: await countedRisks(plan, compiled.model.database, url, outDir), url };
}

/** The plan from the manifest the latest migration was made from (none at first) to this one. */
function migrationPlan(outDir: string, compiled: { manifest: RawManifest; model: Model }): MigrationPlan {
  const existing = existingMigrations(outDir);
  const previous = latestSnapshot(outDir);
  if (existing.length > 0 && !previous) {
    throw new UserError(
      `${relative(process.cwd(), outDir) || "."}: the latest migration, ${existing.at(-1)}, has no tablegen.json to compare the manifest with`,
    );
  }
  return planMigration(previous, compiled);
}

/** The plan's risks that touch rows, counted on the live database when it can be reached (unknown otherwise). */
async function countedRisks(
  plan: MigrationPlan,
  database: Database,
  url: string | undefined,
  outDir: string,
): Promise<CountedRisk[]> {
  if (plan.risks.length === 0) return [];
  const counts = url
    ? await countRows(
        database,
        url,
        outDir,
        plan.risks.map((risk) => riskCountSql(risk, plan.renames)),
      )
    : [];
  return plan.risks
    .map((risk, index) => ({ risk, rows: counts[index], text: describeRisk(risk, counts[index]) }))
    .filter(({ rows }) => rows !== 0);
}

/** The risks as migrate lists them, with the safe order of a deploy when old servers would fail on them. */
function dataLossListing(risks: readonly CountedRisk[]): string {
  return [
    ...risks.map(({ text }) => `  ${text}`),
    ...(risks.some(({ risk }) => STOPS_OLD_SERVERS.has(risk.kind)) ? [SAFE_ORDER] : []),
  ].join("\n");
}

/** migrate's refusal of a change that would lose data, without --accept-data-loss. */
export function dataLossRefusal(risks: readonly CountedRisk[]): UserError {
  const listing = dataLossListing(risks);
  return new UserError(
    `migrate refused: the change would lose data:\n${listing}\nNothing was written or changed. Run again with --accept-data-loss to apply it.`,
  );
}

/** Risks after which a server generated before the change fails on the table (503 until it is replaced). */
const STOPS_OLD_SERVERS: ReadonlySet<Risk["kind"]> = new Set(["table-removed", "field-removed", "type-changed"]);
const SAFE_ORDER =
  "A server still running code that uses what this removes or changes answers 503 on that table until it is replaced: deploy the server generated from this manifest first, then apply this migration.";

/** Lists what the change would lose and asks (on a terminal) or refuses, unless accepted. */
async function confirmDataLoss(
  plan: MigrationPlan,
  database: Database,
  url: string | undefined,
  outDir: string,
  accepted: boolean,
  interactive: boolean,
): Promise<void> {
  const risks = await countedRisks(plan, database, url, outDir);
  if (risks.length === 0 || accepted) return;
  const listing = dataLossListing(risks);
  if (interactive) {
    const proceed = await confirm({
      message: `This change can lose data:\n${listing}\nApply it anyway?`,
      default: false,
    });
    if (proceed) return;
    throw new UserError("migrate cancelled: nothing was written or changed");
  }
  throw dataLossRefusal(risks);
}

/**
 * Renames first, then what Prisma computes from the previous schema to the new one. Without renames
 * the previous schema is the one the latest migration applied (so what a newer tablegen writes
 * differently for the same manifest, such as indexes on references or a DATETIME default's stored
 * form, is migrated too: `updates` names it); with renames, the one the previous manifest gives
 * under the new names.
 */
async function migrationSql(
  plan: MigrationPlan,
  target: Target,
  schema: string,
  applied: string | undefined,
): Promise<{ sql: string | undefined; updates: string[] }> {
  const previous = plan.renamedPrevious;
  const renamed = previous.tables.length > 0 ? emitPrismaSchema(previous) : undefined;
  const fromApplied = plan.renames.length === 0 && applied !== undefined;
  const from = fromApplied ? applied : renamed;
  const updates = fromApplied && renamed !== undefined ? schemaUpdates(applied, renamed) : [];
  const diff = target.diffSql(await diffSchemas(from, schema), from, schema);
  const prismaSql = diff.replace(/^-- This is an empty migration\.\s*$/m, "").trim();
  const renames = target.renameSql(plan.renames, previous).trim();
  if (!prismaSql && !renames) return { sql: undefined, updates };
  return { sql: [renames, fillSql(plan, target), prismaSql].filter(Boolean).join("\n\n") + "\n", updates };
}

/** Statements setting the nulls of fields made required to their defaults, before the columns refuse nulls. */
function fillSql(plan: MigrationPlan, target: Target): string {
  if (plan.fills.length === 0) return "";
  const lines = plan.fills.map(
    ({ table, field }) =>
      `UPDATE ${quote(table)} SET ${quote(field.name)} = ${target.defaultSql(field)} WHERE ${quote(field.name)} IS NULL;`,
  );
  return ["-- Fields made required: their nulls take the default first (tablegen)", ...lines].join("\n");
}

/** A database URL fit to print: without its password. */
function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}
