import { randomBytes } from "node:crypto";
import { aiSettings, draftingSettings, draftStep, MISSING_KEY, type AiSettings } from "../cli/ai.ts";
import { manifestChanges } from "../ai/changes.ts";
import { extensionMessages } from "../ai/extend.ts";
import { DEFAULT_MODEL, firstMessages, revisionMessages, type Draft } from "../ai/generate.ts";
import { summary } from "../ai/summary.ts";
import { UserError } from "../errors.ts";
import { editedManifestText } from "../manifest/edit.ts";
import { compileManifest } from "../model/index.ts";
import type { RawManifest } from "../manifest/schema.ts";
import { unifiedDiff } from "../tree/diff.ts";
import type { AiBody, AiDraft, AiStatus } from "./protocol.ts";
import type { Progress } from "./stream.ts";
import { NotFound, readManifestText, type Project } from "./workspace.ts";

/**
 * The AI page: drafts through the AI generator (`draftStep`, the repair loop `tablegen ai` runs),
 * from a new prompt, as an extension of the current manifest, or as a revision of the draft so far
 * (the same conversation, as the CLI's "retry with extra instructions"); each shown as a diff
 * against the current manifest, accepted into the file (through the YAML document edit) or discarded.
 */

export const HOW_TO_CONFIGURE =
  "Set OPENAI_API_KEY in the environment you start tablegen studio from (any OpenAI-compatible server: " +
  "OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama; TABLEGEN_AI_MODEL picks the model), then restart the studio.";

export function aiStatus(): AiStatus {
  try {
    const settings = aiSettings({});
    return { configured: true, model: settings.model };
  } catch (error) {
    const message = error instanceof UserError ? error.message : String(error);
    return {
      configured: false,
      model: process.env.TABLEGEN_AI_MODEL?.trim() || DEFAULT_MODEL,
      message: message === MISSING_KEY ? `${message}. ${HOW_TO_CONFIGURE}` : message,
    };
  }
}

/** The settings of a conversation, or the reason there is none, as a 400 saying how to configure a model. */
export function configuredAi(): AiSettings {
  try {
    return aiSettings({});
  } catch (error) {
    if (error instanceof UserError && error.message === MISSING_KEY)
      throw new UserError(`${MISSING_KEY}. ${HOW_TO_CONFIGURE}`);
    throw error;
  }
}

interface Session {
  project: string;
  draft: Draft;
  settings: ReturnType<typeof draftingSettings>;
}

export class AiDrafts {
  private readonly sessions = new Map<string, Session>();

  /** Refuses a request that cannot start (before its answer streams): the mode, the prompt, the model, the draft revised. */
  check(project: Project, body: AiBody): void {
    if (!["new", "extend", "revise"].includes(body.mode))
      throw new UserError(`mode must be one of new, extend, revise, not ${JSON.stringify(body.mode)}`);
    if (typeof body.prompt !== "string" || body.prompt.trim() === "") {
      throw new UserError(
        body.mode === "revise"
          ? 'The instructions are empty: say what should change, e.g. "add a tags table"'
          : 'The description is empty: say what the application does, e.g. "a lending library"',
      );
    }
    configuredAi();
    if (body.mode === "revise") this.session(project, body.draft);
  }

  async draft(project: Project, body: AiBody, progress: Progress): Promise<AiDraft> {
    this.check(project, body);
    const settings = configuredAi();
    const { text } = readManifestText(project);
    const current = currentManifest(project, text);
    const overrides = current && { project: current.project, database: current.database ?? "sqlite" };
    let session: Session;
    let draft: Draft;
    if (body.mode === "revise") {
      const previous = this.session(project, body.draft);
      draft = await draftStep(
        previous.settings,
        revisionMessages(previous.draft, body.prompt),
        "Revising",
        progressOf(progress),
      );
      session = { ...previous, draft };
      this.sessions.delete(body.draft!);
    } else {
      const base = draftingSettings(settings, body.prompt, project.manifest, overrides);
      const extend = body.mode === "extend" && current !== undefined;
      const conversation = extend ? { ...base, base: current } : base;
      const messages = extend ? extensionMessages(current, body.prompt) : firstMessages(body.prompt);
      draft = await draftStep(conversation, messages, "Drafting", progressOf(progress));
      session = { project: project.id, draft, settings: conversation };
    }
    const id = randomBytes(9).toString("base64url");
    this.sessions.set(id, session);
    const next = editedManifestText(project.manifest, text, draft.manifest);
    return {
      id,
      text: next,
      diff: unifiedDiff(project.manifest.split("/").pop()!, text, next),
      changes: manifestChanges(current, draft.manifest),
      repairs: draft.repairs,
      summary: summary(draft.manifest),
    };
  }

  /** The draft written into the manifest: its entries replace the current ones, comments kept where entries stay. */
  manifestOf(project: Project, id: string | undefined): RawManifest {
    return this.session(project, id).draft.manifest;
  }

  discard(project: Project, id: string | undefined): void {
    this.session(project, id);
    this.sessions.delete(id!);
  }

  private session(project: Project, id: string | undefined): Session {
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session || session.project !== project.id) throw new NotFound(`No AI draft "${id ?? ""}" of ${project.id}`);
    return session;
  }
}

/** The current manifest, validated; undefined when it is not valid (a draft then replaces it). */
function currentManifest(project: Project, text: string): RawManifest | undefined {
  try {
    return compileManifest(project.manifest, text).manifest;
  } catch {
    return undefined;
  }
}

function progressOf(progress: Progress) {
  return {
    step: (text: string) => progress.step(text),
    problems: (list: readonly string[]) => progress.problems(list),
  };
}
