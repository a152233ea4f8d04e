import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { appliedMigrations } from "../cli/database.ts";
import { migrationUrlFor } from "../cli/env.ts";
import { brokenVersions } from "../cli/guard.ts";
import { checkedModel, compileManifestText, existingMigrations, latestSnapshot } from "../cli/host.ts";
import { compareOutput, generate } from "../cli/generate.ts";
import { dataLossRefusal, migrate, previewMigration } from "../cli/migrate.ts";
import { writeAtomically } from "../cli/writer.ts";
import { UserError } from "../errors.ts";
import { editedManifestText } from "../manifest/edit.ts";
import { parseManifest } from "../manifest/load.ts";
import { versionLabels, type Database } from "../manifest/schema.ts";
import { ManifestError } from "../manifest/validate.ts";
import { planMigration } from "../migrate/plan.ts";
import { compileManifest, type Compiled } from "../model/index.ts";
import { targetFor } from "../targets/index.ts";
import { OWNED_FILES } from "../tree/file-tree.ts";
import type {
  ApplyBody,
  EditBody,
  Plan,
  ProblemAt,
  ProjectDetail,
  ProjectSummary,
  ServerState,
  ValidateAnswer,
} from "./protocol.ts";
import type { Progress } from "./stream.ts";
import { problemsAt, modelView, relationsView } from "./views.ts";
import { Conflict, readManifestText, shown, type Project } from "./workspace.ts";

/**
 * What the studio does with a project's manifest and server, each through the function the CLI
 * command uses: compileManifest (the validator, located problems), checkedModel (the custom
 * queries' check), editedManifestText (the YAML document's edit), compareOutput (generate
 * --check), previewMigration (migrate's plan and risks), generate and migrate themselves.
 */

/** A manifest the user edits, as the CLI names it in its messages: relative to the working directory. */
const fileOf = (project: Project) => shown(project.manifest);

/** An invalid manifest as an answer: 400, the CLI's message, and each problem at its path. */
export class InvalidManifest extends UserError {
  constructor(
    message: string,
    readonly problems: ProblemAt[],
  ) {
    super(message);
  }
}

/** The problems of a manifest that does not compile: the validator's, or its file's syntax error. */
function problemsOf(error: unknown): { message: string; problems: ProblemAt[] } | undefined {
  if (error instanceof ManifestError) return { message: error.message, problems: problemsAt(error.located) };
  // A syntax error (parseManifest): `file:line:col: invalid YAML: …`, at no path of the manifest.
  const syntax = error instanceof UserError && /^.*?:(\d+):(\d+): (invalid (?:YAML|JSON): .*)$/s.exec(error.message);
  if (!syntax) return undefined;
  return {
    message: (error as UserError).message,
    problems: [{ path: [], message: syntax[3]!, line: Number(syntax[1]), column: Number(syntax[2]) }],
  };
}

/** The manifest compiled and its queries checked, or an InvalidManifest with every problem. */
async function compiledAndChecked(file: string, text: string): Promise<Compiled> {
  try {
    const compiled = await compileManifestText(file, text);
    return { ...compiled, model: await checkedModel(compiled, file) };
  } catch (error) {
    const found = problemsOf(error);
    if (found) throw new InvalidManifest(found.message, found.problems);
    throw error;
  }
}

export function projectDetail(project: Project, server: ServerState): ProjectDetail {
  const { text, hash } = readManifestText(project);
  const file = fileOf(project);
  const detail: ProjectDetail = {
    id: project.id,
    dir: shown(project.dir),
    file: basename(project.manifest),
    text,
    hash,
    problems: [],
    server,
  };
  try {
    const snapshot = latestSnapshot(project.out);
    if (snapshot)
      detail.applied = Object.fromEntries(
        Object.entries(snapshot.tables).map(([name, table]) => [name, Object.keys(table.fields)]),
      );
  } catch {
    // A migration folder without its manifest: the Changes page says so.
  }
  try {
    detail.manifest = parseManifest(file, text).data;
    detail.model = modelView(compileManifest(file, text).model);
  } catch (error) {
    const found = problemsOf(error);
    if (!found) throw error;
    detail.invalid = found.message;
    detail.problems = found.problems;
  }
  return detail;
}

export async function projectSummary(project: Project, server: ServerState): Promise<ProjectSummary> {
  const summary: ProjectSummary = {
    id: project.id,
    dir: shown(project.dir),
    file: basename(project.manifest),
    generated: existsSync(join(project.out, OWNED_FILES)),
    unmigrated: 0,
    server,
  };
  let compiled: Compiled;
  try {
    compiled = compileManifest(fileOf(project), readFileSync(project.manifest, "utf8"));
  } catch (error) {
    const found = problemsOf(error);
    if (!found) throw error;
    summary.invalid = found.message;
    return summary;
  }
  const { manifest, model } = compiled;
  Object.assign(summary, {
    project: model.project,
    database: model.database,
    tables: model.tables.length,
    queries: model.queries.length,
    versions: versionLabels(manifest.versions),
  });
  try {
    const plan = planMigration(latestSnapshot(project.out), compiled);
    summary.unmigrated = plan.changes.length;
  } catch {
    // A migration folder without its manifest: the Changes page says so.
  }
  const pending = await pendingMigrations(project, model.database);
  if (pending) summary.pending = pending.length;
  return summary;
}

const DATABASE_WAIT_MS = 3000;

/** Migrations written and not applied to the database; undefined when it cannot be read. */
async function pendingMigrations(project: Project, database: Database): Promise<string[] | undefined> {
  const existing = existingMigrations(project.out);
  const url = migrationUrlFor(project.manifest)?.url ?? targetFor(database).implicitDatabaseUrl;
  if (!url) return undefined;
  // A database that does not answer soon is not waited for: the page says "unknown" instead.
  const applied = await Promise.race([
    appliedMigrations(database, url, project.out).catch(() => undefined),
    delay(DATABASE_WAIT_MS, undefined, { ref: false }),
  ]);
  if (applied === undefined) return existing.length > 0 ? existing : undefined;
  return existing.filter((name) => !applied.includes(name));
}

/** The file's text an edit gives (renames in place, comments and layout kept), and its problems. */
export async function validateEdit(project: Project, edit: EditBody): Promise<ValidateAnswer> {
  const { text: current } = readManifestText(project);
  const text = editedManifestText(project.manifest, current, edit.manifest, edit.renames ?? []);
  try {
    const { model } = await compiledAndChecked(fileOf(project), text);
    return { problems: [], text, relations: relationsView(model) };
  } catch (error) {
    if (error instanceof InvalidManifest) return { problems: error.problems, text };
    throw error;
  }
}

/** Writes an edit into the manifest, when the file is still what it was and the result is valid. */
export async function saveEdit(project: Project, edit: EditBody): Promise<void> {
  const { text: current, hash } = readManifestText(project);
  if (edit.hash !== undefined && edit.hash !== hash) {
    throw new Conflict(
      `${fileOf(project)} changed on disk since it was opened here; reload it to see the changes (yours are kept in the page until then)`,
    );
  }
  const text = editedManifestText(project.manifest, current, edit.manifest, edit.renames ?? []);
  await compiledAndChecked(fileOf(project), text);
  writeAtomically(project.manifest, text);
}

/** The Changes page: what generate --check finds, migrate's plan and risks, and what is not applied yet. */
export async function plan(project: Project): Promise<Plan> {
  const options = { manifest: fileOf(project), out: shown(project.out) };
  let comparison;
  try {
    comparison = await compareOutput(options);
  } catch (error) {
    const found = problemsOf(error);
    if (found) throw new InvalidManifest(found.message, found.problems);
    throw error;
  }
  const preview = await previewMigration(options);
  const { plan: migration } = preview;
  const database = compileManifest(fileOf(project), readFileSync(project.manifest, "utf8")).model.database;
  const pending = await pendingMigrations(project, database);
  return {
    files: comparison.differences,
    breaks: comparison.breaks,
    brokenVersions: brokenVersions(comparison.breaks),
    migration: {
      renames: migration.renames.map((rename) =>
        rename.kind === "table"
          ? `table ${rename.from} → ${rename.to}`
          : `${rename.table}.${rename.from} → ${rename.table}.${rename.to}`,
      ),
      changes: migration.changes,
      problems: migration.problems,
    },
    risks: preview.risks.map(({ text, rows }) => ({ text, ...(rows !== undefined && { rows }) })),
    ...(pending && { pending }),
    generated: existsSync(join(project.out, OWNED_FILES)),
  };
}

/**
 * Apply: generate, then migrate, as `tablegen generate [--allow-breaking …]` and `tablegen migrate
 * [--accept-data-loss]` run them. A change that would lose data is refused before anything is
 * written, with migrate's message, unless accepted; generate refuses unaccepted breaks itself.
 */
export async function apply(project: Project, body: ApplyBody, progress: Progress): Promise<void> {
  const options = { manifest: fileOf(project), out: shown(project.out) };
  progress.step("Checking what the change would lose…");
  const preview = await previewMigration(options);
  if (preview.risks.length > 0 && body.acceptDataLoss !== true) throw dataLossRefusal(preview.risks);
  const allowBreaking = body.allowBreaking?.length ? [body.allowBreaking.join(",")] : undefined;
  progress.step(`Generating ${options.out}${allowBreaking ? ` (--allow-breaking ${allowBreaking[0]})` : ""}…`);
  const generated = await generate({ ...options, allowBreaking });
  for (const line of generated.summary.split("\n")) progress.step(line);
  for (const warning of generated.warnings ?? []) progress.step(warning);
  progress.step(`Migrating${body.acceptDataLoss ? " (--accept-data-loss)" : ""}…`);
  await migrate({ ...options, acceptDataLoss: body.acceptDataLoss === true }, false, (line) => progress.step(line));
}
