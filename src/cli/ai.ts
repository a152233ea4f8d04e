import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { input, select } from "@inquirer/prompts";
import yoctoSpinner from "yocto-spinner";
import {
  DEFAULT_MODEL,
  draftManifest,
  firstMessages,
  revisionMessages,
  type Draft,
  type DraftSettings,
} from "../ai/generate.ts";
import { summary } from "../ai/summary.ts";
import { UserError } from "../errors.ts";
import { makeDirectory, removeDirectories } from "./directories.ts";
import { envFile, gitignoreContent } from "./project-files.ts";
import { openaiCompletion } from "./openai.ts";
import { checkQueries } from "./queries.ts";
import { shownPath } from "./paths.ts";

/** The options of `tablegen ai` (and of `init --ai`, which writes to its own tablegen.yaml). */
export interface AiOptions {
  model?: string;
  /** Seconds, as typed. */
  timeout?: string;
  /** As typed. */
  maxRepairs?: string;
}

export interface AiCommandOptions extends AiOptions {
  out: string;
  yes?: boolean;
  force?: boolean;
}

export const MISSING_KEY =
  "OPENAI_API_KEY is not set: the AI generator needs an API key (OPENAI_BASE_URL points it at any OpenAI-compatible server)";

/** The settings of a conversation with the model, from the flags and the environment; checked before any request. */
export type AiSettings = Omit<DraftSettings, "file" | "comment" | "overrides" | "onRequest">;

export function aiSettings(options: AiOptions): AiSettings {
  const timeoutSeconds = positiveSeconds(options.timeout ?? "60");
  const maxRepairs = repairCount(options.maxRepairs ?? "2");
  const apiKey = process.env.OPENAI_API_KEY?.trim();
  if (!apiKey) throw new UserError(MISSING_KEY);
  const baseURL = process.env.OPENAI_BASE_URL?.trim();
  if (baseURL && !/^https?:$/.test(urlProtocol(baseURL))) {
    throw new UserError(
      `OPENAI_BASE_URL is not an http(s) URL: "${baseURL}" (for example http://localhost:11434/v1 for Ollama)`,
    );
  }
  const model = options.model?.trim() || process.env.TABLEGEN_AI_MODEL?.trim() || DEFAULT_MODEL;
  // The SDK reads OPENAI_BASE_URL itself.
  return { complete: openaiCompletion({ apiKey, model, timeoutSeconds }), model, maxRepairs, checkQueries };
}

function urlProtocol(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return "";
  }
}

function positiveSeconds(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0)
    throw new UserError(`--timeout must be a positive number of seconds, not "${text}"`);
  return value;
}

function repairCount(text: string): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value))
    throw new UserError(`--max-repairs must be a whole number (0 or more), not "${text}"`);
  return value;
}

export function checkPrompt(prompt: string, flag: string): void {
  if (prompt.trim() === "") {
    throw new UserError(`${flag}: the description is empty: say what the application does, e.g. "a lending library"`);
  }
}

/**
 * `tablegen ai "<prompt>"`: drafts, shows, asks (on a terminal, without --yes), writes. Beside a
 * manifest that has no `.env`, writes one as `init` does (a fresh API signature key and the
 * database's URL, which the server will not start without) and the `.gitignore` lines that keep it
 * out of git. Returns the written files, the manifest first.
 */
export async function ai(prompt: string, options: AiCommandOptions, interactive: boolean): Promise<string[]> {
  checkPrompt(prompt, "ai");
  const settings = aiSettings(options);
  const out = resolve(options.out);
  if (!options.force && existsSync(out))
    throw new UserError(`${shownPath(out)} already exists; use --force to overwrite it`);
  // A directory that cannot be made fails at once, before the model is asked; one made here is
  // removed again if nothing is written.
  const dir = dirname(out);
  const created = makeDirectory(dir);
  let draft: Draft;
  try {
    draft = await draftWithReview(prompt, settings, {
      file: out,
      review: interactive && !options.yes,
      print: (text) => console.log(text),
    });
    await writeFile(out, draft.text, { flag: options.force ? "w" : "wx" });
  } catch (error) {
    removeDirectories(created);
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new UserError(`${shownPath(out)} already exists; use --force to overwrite it`);
    throw error;
  }
  const written = [out];
  const envPath = join(dir, ".env");
  if (!existsSync(envPath)) {
    await writeFile(envPath, envFile(draft.manifest.database ?? "sqlite", draft.manifest.project), { mode: 0o600 });
    await chmod(envPath, 0o600);
    written.push(envPath);
    const gitignorePath = join(dir, ".gitignore");
    const gitignore = await gitignoreContent(gitignorePath);
    if (gitignore !== undefined) {
      await writeFile(gitignorePath, gitignore);
      written.push(gitignorePath);
    }
  }
  return written;
}

export interface ReviewOptions {
  /** The file the manifest is for. */
  file: string;
  /** Ask to accept, retry with instructions or cancel (a terminal without --yes). */
  review: boolean;
  print: (text: string) => void;
  overrides?: DraftSettings["overrides"];
  /** Where the steps are told; without it, a spinner on a terminal's stderr. */
  progress?: DraftProgress;
}

/**
 * How a draft's long wait is told: each request to the model as it starts (a draft, a revision,
 * a repair), and the problems of each invalid draft as they are sent back. The CLI turns a
 * spinner; the studio streams the lines to the browser.
 */
export interface DraftProgress {
  step(text: string): void;
  problems?(problems: readonly string[]): void;
}

/** The settings of one conversation: a file's name (YAML or JSON), the comment recording the prompt, overrides. */
export function draftingSettings(
  settings: AiSettings,
  prompt: string,
  file: string,
  overrides?: DraftSettings["overrides"],
): DraftSettings {
  return { ...settings, file: basename(file), comment: fileComment(settings.model, prompt), overrides };
}

/**
 * Drafts a manifest while a spinner turns, prints its summary and, when reviewing, asks whether to
 * accept it, retry with extra instructions, or cancel. Returns the accepted draft.
 */
export async function draftWithReview(prompt: string, settings: AiSettings, options: ReviewOptions): Promise<Draft> {
  const shown = shownPath(options.file);
  const base = draftingSettings(settings, prompt, options.file, options.overrides);
  let messages = firstMessages(prompt);
  for (let revision = 0; ; revision++) {
    const draft = await draftStep(base, messages, revision === 0 ? "Drafting" : "Revising", options.progress);
    options.print(`\n${summary(draft.manifest)}\n`);
    if (!options.review) return draft;
    const choice = await select<"accept" | "retry" | "cancel">({
      message: revision === 0 ? "Use this manifest?" : `Use the revised manifest (revision ${revision})?`,
      choices: [
        { name: `Accept: write ${shown}`, value: "accept" },
        { name: "Retry with extra instructions", value: "retry" },
        { name: "Cancel", value: "cancel" },
      ],
    });
    if (choice === "accept") return draft;
    if (choice === "cancel") throw new UserError("cancelled: nothing was written");
    const instructions = await input({
      message: "What should change?",
      validate: (value) => value.trim() !== "" || "describe the change, e.g. add a tags table",
    });
    messages = revisionMessages(draft, instructions);
  }
}

/**
 * One draft or revision: the requests (with the repair loop), each told to `progress`, or shown
 * by a spinner on a terminal when there is none. Throws the one clear message of a failure.
 */
export async function draftStep(
  settings: DraftSettings,
  messages: Parameters<typeof draftManifest>[0],
  doing: "Drafting" | "Revising",
  progress?: DraftProgress,
): Promise<Draft> {
  const spinner = !progress && process.stderr.isTTY ? yoctoSpinner({ stream: process.stderr }) : undefined;
  const onRequest = (repair: number) => {
    const text =
      repair === 0
        ? `${doing} the manifest with ${settings.model}…`
        : `Repairing the draft (${repair} of ${settings.maxRepairs})…`;
    progress?.step(text);
    if (spinner?.isSpinning) spinner.text = text;
    else spinner?.start(text);
  };
  const onProblems = (problems: readonly string[]) => progress?.problems?.(problems);
  try {
    const draft = await draftManifest(messages, { ...settings, onRequest, onProblems });
    const repaired = draft.repairs === 0 ? "" : ` after ${draft.repairs} ${draft.repairs === 1 ? "repair" : "repairs"}`;
    spinner?.success(`Drafted a valid manifest with ${settings.model}${repaired}`);
    progress?.step(`Drafted a valid manifest with ${settings.model}${repaired}`);
    return draft;
  } finally {
    spinner?.stop();
  }
}

/** The comment heading a drafted YAML manifest: where it came from. */
function fileComment(model: string, prompt: string): string {
  const lines = prompt
    .trim()
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, "")
    .split(/\r\n|\r|\n/);
  return `Drafted by tablegen ai (${model}) from:\n  ${lines.join("\n  ")}`;
}
