import { useState } from "preact/hooks";
import type { AiDraft, ProjectDetail } from "../../src/studio/protocol.ts";
import { api, stream } from "../api.ts";
import { href, useStudio } from "../app.tsx";
import { Badge, DiffView, errorProps, FieldError, Notice, PageHeader, ProgressLog } from "../components.tsx";

/**
 * The AI generator in the browser: a prompt drafts a manifest or extends the current one, follow-up
 * instructions revise the draft; each draft is shown as its changes and a diff against the current
 * manifest, with the repair loop's messages, and accepted into tablegen.yaml or discarded.
 */
export function AiPage() {
  const { project, workspace, reloadProject, drafts } = useStudio();
  const detail = project!;
  const ai = workspace?.ai;
  const [mode, setMode] = useState<"extend" | "new">(detail.model ? "extend" : "new");
  const [prompt, setPrompt] = useState("");
  const [followUp, setFollowUp] = useState("");
  const [draft, setDraft] = useState<AiDraft>();
  const [lines, setLines] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [errors, setErrors] = useState<{ prompt?: string; followUp?: string; accept?: string }>({});
  const [accepted, setAccepted] = useState<string>();

  const run = async (body: { mode: "new" | "extend" | "revise"; prompt: string; draft?: string }) => {
    setRunning(true);
    setLines([]);
    setErrors({});
    setAccepted(undefined);
    try {
      const result = await stream<AiDraft>(`/api/projects/${encodeURIComponent(detail.id)}/ai`, body, (event) => {
        if (event.type === "progress") setLines((current) => [...current, event.text]);
        if (event.type === "problems")
          setLines((current) => [
            ...current,
            `The draft is invalid (${event.problems.length} ${event.problems.length === 1 ? "problem" : "problems"}), sent back for repair: ${event.problems.join("; ")}`,
          ]);
      });
      setDraft(result);
      setFollowUp("");
    } catch (error) {
      const message = (error as Error).message;
      setErrors(body.mode === "revise" ? { followUp: message } : { prompt: message });
    } finally {
      setRunning(false);
    }
  };

  const accept = async () => {
    try {
      await api<ProjectDetail>("POST", `/api/projects/${encodeURIComponent(detail.id)}/ai/${draft!.id}/accept`, {
        hash: detail.hash,
      });
      drafts.delete(detail.id);
      setDraft(undefined);
      setAccepted(`Wrote the draft into ${detail.file}.`);
      await reloadProject();
    } catch (error) {
      setErrors({ accept: (error as Error).message });
    }
  };

  const discard = async () => {
    await api("DELETE", `/api/projects/${encodeURIComponent(detail.id)}/ai/${draft!.id}`).catch(() => undefined);
    setDraft(undefined);
    setLines([]);
  };

  return (
    <div class="page ai-page">
      <PageHeader title="AI">{ai?.configured && <span class="muted">Model: {ai.model}</span>}</PageHeader>
      {!ai?.configured && (
        <Notice kind="warning" title="No AI model configured">
          <p>{ai?.message}</p>
        </Notice>
      )}
      <section class="card" aria-labelledby="prompt-title">
        <h2 id="prompt-title">Describe the change</h2>
        <form
          class="form"
          onSubmit={(event) => {
            event.preventDefault();
            void run({ mode, prompt });
          }}
        >
          <fieldset class="form-field">
            <legend>What to draft</legend>
            <div class="choices">
              <label class="choice">
                <input
                  type="radio"
                  name="ai-mode"
                  checked={mode === "extend"}
                  disabled={!detail.model}
                  onChange={() => setMode("extend")}
                />
                <span>Extend the current manifest (keeps its tables unless asked)</span>
              </label>
              <label class="choice">
                <input type="radio" name="ai-mode" checked={mode === "new"} onChange={() => setMode("new")} />
                <span>A new manifest (its tables replace the current ones)</span>
              </label>
            </div>
          </fieldset>
          <div class="form-field">
            <label for="ai-prompt">{mode === "extend" ? "What should change?" : "What does the application do?"}</label>
            <textarea
              id="ai-prompt"
              rows={3}
              value={prompt}
              disabled={!ai?.configured}
              placeholder={
                mode === "extend"
                  ? "add tags that posts can have several of"
                  : "a lending library: members borrow books, with due dates and late fees"
              }
              onInput={(event) => setPrompt((event.target as HTMLTextAreaElement).value)}
              {...errorProps("ai-prompt", errors.prompt)}
            />
            <FieldError id="ai-prompt" message={errors.prompt} />
          </div>
          <div class="form-actions">
            <button type="submit" class="button primary" disabled={!ai?.configured || running}>
              {running ? "Drafting…" : "Draft"}
            </button>
          </div>
        </form>
        <ProgressLog lines={lines} running={running} label="Drafting with the AI model" />
      </section>
      {accepted && (
        <Notice kind="success">
          {accepted} <a href={href(detail.id, "changes")}>See what applying it does</a>.
        </Notice>
      )}
      {draft && (
        <section class="card" aria-labelledby="draft-title">
          <div class="editor-head">
            <h2 id="draft-title">
              The draft{" "}
              <span class="muted">
                (
                {draft.repairs === 0
                  ? "valid at once"
                  : `valid after ${draft.repairs} ${draft.repairs === 1 ? "repair" : "repairs"}`}
                )
              </span>
            </h2>
            <div class="page-actions">
              <button type="button" class="button" onClick={() => void discard()}>
                Discard
              </button>
              <button type="button" class="button primary" onClick={() => void accept()}>
                Accept into {detail.file}
              </button>
            </div>
          </div>
          <FieldError id="ai-accept" message={errors.accept} />
          <h3>Against the current manifest</h3>
          {draft.changes.length === 0 ? (
            <p>No change.</p>
          ) : (
            <ul class="draft-changes" aria-label="Changes of the draft">
              {draft.changes.map((change, index) => (
                <li key={index}>
                  <Badge kind={change.kind === "added" ? "ok" : change.kind === "removed" ? "danger" : "warn"}>
                    {change.kind}
                  </Badge>{" "}
                  <span class="mono">{change.what}</span>
                </li>
              ))}
            </ul>
          )}
          <details>
            <summary>Diff of {detail.file}</summary>
            <DiffView diff={draft.diff} label={`Diff of ${detail.file}`} />
          </details>
          <form
            class="form follow-up"
            onSubmit={(event) => {
              event.preventDefault();
              void run({ mode: "revise", prompt: followUp, draft: draft.id });
            }}
          >
            <div class="form-field">
              <label for="ai-follow-up">Follow-up instructions</label>
              <textarea
                id="ai-follow-up"
                rows={2}
                value={followUp}
                placeholder="make e-mail addresses unique; add a phone to members"
                onInput={(event) => setFollowUp((event.target as HTMLTextAreaElement).value)}
                {...errorProps("ai-follow-up", errors.followUp)}
              />
              <FieldError id="ai-follow-up" message={errors.followUp} />
            </div>
            <div class="form-actions">
              <button type="submit" class="button" disabled={running}>
                Revise the draft
              </button>
            </div>
          </form>
        </section>
      )}
    </div>
  );
}
