import type { ChatCompletion, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { UserError } from "../errors.ts";
import { compileManifest } from "../model/index.ts";
import type { Model } from "../model/types.ts";
import { formatPath, ManifestError } from "../manifest/validate.ts";
import type { Database, RawManifest } from "../manifest/schema.ts";
import { carryOver } from "./extend.ts";
import { repairMessage, SYSTEM_PROMPT } from "./prompt.ts";
import { fromAiForm } from "./schema.ts";
import { manifestText } from "./text.ts";

/** A current small OpenAI model with structured outputs. */
export const DEFAULT_MODEL = "gpt-4.1-mini";

/** The name of the response format (`json_schema.name`). */
export const SCHEMA_NAME = "tablegen_manifest";

/**
 * One request to the model: the conversation in, its chat completion out, answered in the strict
 * JSON Schema `AI_JSON_SCHEMA` named `SCHEMA_NAME`. The CLI makes it with the openai SDK; a failure
 * of the request is a UserError.
 */
export type Complete = (messages: ChatCompletionMessageParam[]) => Promise<ChatCompletion>;

export interface DraftSettings {
  complete: Complete;
  model: string;
  /** How many times an invalid draft is sent back to the model. */
  maxRepairs: number;
  /** The file the manifest will be written to: its extension decides YAML or JSON. */
  file: string;
  /** A comment heading the YAML text. */
  comment?: string;
  /** Values the manifest takes whatever the model says (init --ai: --name, --db). */
  overrides?: { project?: string; database?: Database };
  /** Told before each request: 0 for a draft, n for the n-th repair. */
  onRequest?: (repair: number) => void;
  /** Told the problems of an invalid draft, before they are sent back for repair (or end the conversation). */
  onProblems?: (problems: readonly string[]) => void;
  /** The manifest being extended: what the model's form cannot hold is carried over from it (src/ai/extend.ts). */
  base?: RawManifest;
  /** Prepares a valid draft's custom queries against its tables: what their database refuses is repaired too. */
  checkQueries?: (model: Model) => Promise<{ query: string; message: string }[]>;
}

export interface Draft {
  /** The valid manifest. */
  manifest: RawManifest;
  /** Its file's text, validated as it is. */
  text: string;
  /** How many repairs it took. */
  repairs: number;
  /** The conversation, ending with the model's answer: the start of a revision. */
  messages: ChatCompletionMessageParam[];
}

/** The opening of a conversation: the instructions, then the user's description on its own. */
export function firstMessages(prompt: string): ChatCompletionMessageParam[] {
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: prompt },
  ];
}

/** The conversation that asks for changes to a draft: the user's instructions as a message of their own. */
export function revisionMessages(draft: Draft, instructions: string): ChatCompletionMessageParam[] {
  return [...draft.messages, { role: "user", content: instructions }];
}

/**
 * Asks the model for a manifest, validates its answer with the manifest validator and sends the
 * problems back until it is valid or the repairs are used up. Returns only a valid manifest;
 * throws a UserError with one clear message otherwise.
 */
export async function draftManifest(
  messages: readonly ChatCompletionMessageParam[],
  settings: DraftSettings,
): Promise<Draft> {
  const conversation = [...messages];
  let problems: string[] = [];
  for (let repair = 0; repair <= settings.maxRepairs; repair++) {
    if (repair > 0) conversation.push({ role: "user", content: repairMessage(problems) });
    settings.onRequest?.(repair);
    const { content, data } = await ask(conversation, settings);
    conversation.push({ role: "assistant", content });
    const checked = await check(data, settings);
    if ("manifest" in checked) return { ...checked, repairs: repair, messages: conversation };
    problems = checked.problems;
    settings.onProblems?.(problems);
  }
  const n = settings.maxRepairs;
  const when = n === 0 ? "and --max-repairs is 0" : `still, after ${n} ${n === 1 ? "repair" : "repairs"}`;
  throw new UserError(
    `the model's manifest is invalid ${when}:\n${problems.map((problem) => `  ${problem}`).join("\n")}`,
  );
}

/** One request; the answer's text and its JSON. */
async function ask(
  messages: ChatCompletionMessageParam[],
  settings: DraftSettings,
): Promise<{ content: string; data: unknown }> {
  const completion = await settings.complete(messages);
  if (typeof completion !== "object" || completion === null || !Array.isArray(completion.choices))
    throw new UserError("the model server's answer is not a chat completion");
  const choice = completion.choices[0];
  const refusal = choice?.message?.refusal;
  if (refusal) throw new UserError(`the model refused: ${refusal}`);
  const content = choice?.message?.content;
  if (typeof content !== "string" || content.trim() === "") {
    throw new UserError(
      choice?.finish_reason === "content_filter"
        ? "the model's answer was withheld by its content filter"
        : "the model's answer is empty",
    );
  }
  try {
    return { content, data: JSON.parse(unfenced(content)) as unknown };
  } catch {
    const cut = choice?.finish_reason === "length" ? ": it was cut off at the model's length limit" : "";
    throw new UserError(`the model's answer is not JSON${cut}`);
  }
}

/** Some OpenAI-compatible servers wrap JSON in a Markdown code fence. */
function unfenced(content: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  return match ? match[1]! : content;
}

/** The model's JSON → a valid manifest and its text, or the problems to send back. */
async function check(
  data: unknown,
  settings: DraftSettings,
): Promise<Omit<Draft, "repairs" | "messages"> | { problems: string[] }> {
  const { manifest, problems } = fromAiForm(data);
  const shapeProblems = problems.map(({ path, message }) => `${formatPath(path)}: ${message}`);
  const carried = settings.base ? carryOver(settings.base, manifest) : manifest;
  const overridden = isRecord(carried) ? { ...carried, ...definedOnly(settings.overrides ?? {}) } : carried;
  const text = manifestText(overridden, settings.file, settings.comment);
  let model: Model;
  try {
    model = compileManifest(settings.file, text).model;
  } catch (error) {
    if (error instanceof ManifestError) {
      // Each problem is located in a text the model never saw: its path says where.
      const located = error.problems.map((problem) => problem.replace(/^.*?:\d+:\d+ /, ""));
      return { problems: [...shapeProblems, ...located] };
    }
    if (error instanceof UserError) return { problems: [...shapeProblems, error.message] };
    throw error;
  }
  if (shapeProblems.length > 0) return { problems: shapeProblems };
  const queryProblems = (await settings.checkQueries?.(model)) ?? [];
  if (queryProblems.length > 0)
    return { problems: queryProblems.map(({ query, message }) => `queries.${query}.sql: ${message}`) };
  return { manifest: overridden as RawManifest, text };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function definedOnly(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
