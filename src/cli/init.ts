import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { confirm, input, select } from "@inquirer/prompts";
import { UserError } from "../errors.ts";
import { renderer } from "../emit/templates.ts";
import { DATABASES, PROJECT_NAME, type Database } from "../manifest/schema.ts";
import { targetFor } from "../targets/index.ts";
import { templatePath } from "../targets/target.ts";
import { makeDirectory, removeDirectories } from "./directories.ts";
import type { DraftProgress } from "./ai.ts";
import { loadSources } from "./host.ts";
import { envFile, gitignoreContent } from "./project-files.ts";
import { shownPath } from "./paths.ts";

export interface InitOptions {
  name?: string;
  db?: string;
  yes?: boolean;
  force?: boolean;
  /** --ai: the description of the application the AI generator drafts the tables from. */
  ai?: string;
  /** With --ai: the AI generator's --model, --timeout and --max-repairs. */
  model?: string;
  timeout?: string;
  maxRepairs?: string;
  /** Without asking: start from the example tables (the default) or from one blank table. */
  example?: boolean;
  /** With --ai: where the model's requests, repairs and summary are told (the studio); else the terminal. */
  progress?: DraftProgress;
}

/** The starter manifest's template, rendered with the answers. */
export const INIT_MANIFEST = templatePath<InitAnswers>("init/tablegen.yaml.hbs");

interface InitAnswers {
  project: string;
  database: Database;
  example: boolean;
}

export { defaultDatabaseUrl, newSignatureKey } from "./project-files.ts";

export async function init(dir: string, options: InitOptions, interactive: boolean): Promise<string[]> {
  const target = resolve(dir);
  const manifestPath = join(target, "tablegen.yaml");
  const envPath = join(target, ".env");
  if (!options.force) {
    for (const path of [manifestPath, join(target, "tablegen.json"), envPath]) {
      if (existsSync(path)) throw new UserError(`${shownPath(path)} already exists; use --force to overwrite it`);
    }
  }
  // A directory that cannot be made fails at once, before any question or request to a model;
  // one made here is removed again if init goes no further.
  const created = makeDirectory(target);
  try {
    return await initIn(target, options, interactive);
  } catch (error) {
    removeDirectories(created);
    throw error;
  }
}

async function initIn(target: string, options: InitOptions, interactive: boolean): Promise<string[]> {
  const manifestPath = join(target, "tablegen.yaml");
  const envPath = join(target, ".env");
  const ai = options.ai === undefined ? undefined : await import("./ai.ts");
  if (ai && options.ai !== undefined) ai.checkPrompt(options.ai, "init --ai");
  // Settings (and the API key) are checked before any question is asked.
  const aiSettings = ai?.aiSettings(options);
  const review = interactive && !options.yes;
  const answers = review ? await ask(target, options, aiSettings === undefined) : defaults(target, options);

  const render = renderer(loadSources());
  let manifest = render(INIT_MANIFEST, answers);
  let database = answers.database;
  if (ai && aiSettings && options.ai !== undefined) {
    // The project name and an explicitly chosen database are the user's, whatever the model says.
    const chosenDatabase = options.db !== undefined || review ? answers.database : undefined;
    const draft = await ai.draftWithReview(options.ai, aiSettings, {
      file: manifestPath,
      review,
      print: (text) => (options.progress ? options.progress.step(text.trim()) : console.log(text)),
      overrides: { project: answers.project, database: chosenDatabase },
      progress: options.progress,
    });
    manifest = draft.text;
    database = draft.manifest.database ?? "sqlite";
  }

  const files: [string, string][] = [
    [manifestPath, manifest],
    [envPath, envFile(database, answers.project)],
  ];
  const gitignorePath = join(target, ".gitignore");
  const gitignore = await gitignoreContent(gitignorePath);
  if (gitignore !== undefined) files.push([gitignorePath, gitignore]);
  for (const [path, content] of files) await writeFile(path, content, { mode: path === envPath ? 0o600 : 0o644 });
  // The key is a secret: an overwritten .env keeps its old mode otherwise.
  await chmod(envPath, 0o600);
  return files.map(([path]) => path);
}

function defaults(target: string, options: InitOptions): InitAnswers {
  const project = options.name ?? projectNameFrom(basename(target));
  checkProjectName(project);
  return { project, database: databaseOption(options.db), example: options.example ?? true };
}

async function ask(target: string, options: InitOptions, askExample: boolean): Promise<InitAnswers> {
  const project =
    options.name ??
    (await input({
      message: "Project name (the first segment of every URL)",
      default: projectNameFrom(basename(target)),
      validate: (value) => PROJECT_NAME.test(value) || "a lowercase letter, then lowercase letters, digits or dashes",
    }));
  checkProjectName(project);
  const database =
    options.db !== undefined
      ? databaseOption(options.db)
      : await select<Database>({
          message: "Database",
          choices: DATABASES.map((value) => ({ name: targetFor(value).choice, value })),
        });
  const example =
    askExample &&
    (await confirm({
      message: "Start from the example tables (authors, books and a query)?",
      default: true,
    }));
  return { project, database, example };
}

function databaseOption(value: string | undefined): Database {
  if (value === undefined) return "sqlite";
  if (!(DATABASES as readonly string[]).includes(value)) {
    throw new UserError(`--db must be one of ${DATABASES.join(", ")}, not "${value}"`);
  }
  return value as Database;
}

function checkProjectName(name: string): void {
  if (!PROJECT_NAME.test(name)) {
    throw new UserError(
      `--name: "${name}" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most`,
    );
  }
}

/** A project name derived from a directory name: `My App` → `my-app`. */
export function projectNameFrom(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "")
    .slice(0, 63);
  return name || "app";
}
