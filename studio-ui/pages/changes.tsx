import { useEffect, useState } from "preact/hooks";
import type { Plan } from "../../src/studio/protocol.ts";
import { api, ApiError, stream } from "../api.ts";
import { href, useStudio } from "../app.tsx";
import { Badge, DiffView, FieldError, Notice, PageHeader, ProgressLog } from "../components.tsx";

/**
 * The plan before anything is applied: the files generate would write (its --check), the
 * migration (renames, changes), what it would lose, and the breaks of published versions. Apply
 * runs generate and migrate; data loss and breaks need a confirmation naming them, as the CLI's
 * --accept-data-loss and --allow-breaking do.
 */
export function ChangesPage() {
  const { project, reloadProject, reloadWorkspace, drafts } = useStudio();
  const detail = project!;
  const [plan, setPlan] = useState<Plan>();
  const [loadError, setLoadError] = useState<ApiError>();
  const [loading, setLoading] = useState(false);
  const [acceptLoss, setAcceptLoss] = useState(false);
  const [allowed, setAllowed] = useState<string[]>([]);
  const [lines, setLines] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: "success" | "error"; text: string }>();
  const [open, setOpen] = useState<string[]>([]);

  const load = async () => {
    setLoading(true);
    try {
      setPlan(await api<Plan>("GET", `/api/projects/${encodeURIComponent(detail.id)}/plan`));
      setLoadError(undefined);
    } catch (error) {
      setPlan(undefined);
      setLoadError(error as ApiError);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => void load(), []);

  const applyChanges = async () => {
    setRunning(true);
    setLines([]);
    setOutcome(undefined);
    try {
      await stream(
        `/api/projects/${encodeURIComponent(detail.id)}/apply`,
        { acceptDataLoss: acceptLoss, allowBreaking: allowed },
        (event) => {
          if (event.type === "progress") setLines((current) => [...current, event.text]);
        },
      );
      setOutcome({ kind: "success", text: "Applied: the server is generated and the database migrated." });
      setAcceptLoss(false);
      setAllowed([]);
    } catch (error) {
      setOutcome({ kind: "error", text: (error as Error).message });
    } finally {
      setRunning(false);
      await Promise.all([load(), reloadProject(), reloadWorkspace()]);
    }
  };

  const unsaved = drafts.get(detail.id)?.dirty;
  const nothing =
    plan && plan.files.length === 0 && plan.migration.changes.length === 0 && (plan.pending ?? []).length === 0;
  const needsLoss = (plan?.risks.length ?? 0) > 0;
  const missingBreaks = (plan?.brokenVersions ?? []).filter((version) => !allowed.includes(version));
  const blocked =
    !plan || running || (needsLoss && !acceptLoss) || missingBreaks.length > 0 || plan.migration.problems.length > 0;

  return (
    <div class="page changes-page">
      <PageHeader title="Changes">
        <button type="button" class="button" disabled={loading || running} onClick={() => void load()}>
          {loading ? "Planning…" : "Refresh plan"}
        </button>
      </PageHeader>
      {unsaved && (
        <Notice kind="warning">
          The Tables page has unsaved edits: the plan is of {detail.file} as saved.{" "}
          <a href={href(detail.id, "tables")}>Save them first</a>.
        </Notice>
      )}
      {loading && !plan && <p class="loading">Planning: generating in memory and comparing…</p>}
      {loadError && (
        <Notice kind="error" title="No plan: the manifest cannot be applied as it is">
          <pre class="message">{loadError.message}</pre>
          {loadError.problems.length > 0 && <a href={href(detail.id, "tables")}>Fix it on the Tables page</a>}
        </Notice>
      )}
      {plan && (
        <>
          {nothing ? (
            <Notice kind="success">
              Nothing to apply: the server is what {detail.file} generates and the database has every migration.
            </Notice>
          ) : null}
          <section class="card" aria-labelledby="files-title">
            <h2 id="files-title">
              Files <span class="muted">({plan.files.length})</span>
            </h2>
            <p class="muted small">
              What <code>tablegen generate --check</code> finds: the files generate would write, change or remove.
            </p>
            {plan.files.length === 0 ? (
              <p>The generated server is up to date.</p>
            ) : (
              <ul class="file-list">
                {plan.files.map((file) => {
                  const shown = open.includes(file.path);
                  return (
                    <li key={file.path}>
                      <button
                        type="button"
                        class="file-toggle"
                        aria-expanded={shown}
                        onClick={() =>
                          setOpen(shown ? open.filter((path) => path !== file.path) : [...open, file.path])
                        }
                      >
                        <Badge kind={file.status === "missing" ? "ok" : file.status === "extra" ? "danger" : "warn"}>
                          {file.status === "missing" ? "new" : file.status === "extra" ? "removed" : "changed"}
                        </Badge>
                        <span class="mono">{file.path}</span>
                      </button>
                      {shown && <DiffView diff={file.diff} label={`Diff of ${file.path}`} />}
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
          <section class="card" aria-labelledby="migration-title">
            <h2 id="migration-title">Migration</h2>
            {plan.migration.changes.length === 0 ? (
              <p>No change to the database's schema.</p>
            ) : (
              <>
                {plan.migration.renames.length > 0 && (
                  <div class="renames" aria-label="Renames">
                    <h3>Renamed (values kept)</h3>
                    <ul>
                      {plan.migration.renames.map((rename) => (
                        <li key={rename} class="mono">
                          {rename}
                        </li>
                      ))}
                    </ul>
                  </div>
                )}
                <ul class="changes-list" aria-label="Schema changes">
                  {plan.migration.changes.map((change) => (
                    <li key={change} class="mono">
                      {change}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {plan.migration.problems.length > 0 && (
              <Notice kind="error" title="Cannot be migrated as written">
                <ul>
                  {plan.migration.problems.map((problem) => (
                    <li key={problem}>{problem}</li>
                  ))}
                </ul>
              </Notice>
            )}
            {plan.pending && plan.pending.length > 0 && (
              <p class="muted">
                Written and not applied yet: <span class="mono">{plan.pending.join(", ")}</span>
              </p>
            )}
          </section>
          {needsLoss && (
            <section class="card danger-zone" aria-labelledby="loss-title">
              <h2 id="loss-title">Data loss</h2>
              <ul class="risks">
                {plan.risks.map((risk) => (
                  <li key={risk.text}>{risk.text}</li>
                ))}
              </ul>
              <label class="confirm">
                <input
                  type="checkbox"
                  id="accept-data-loss"
                  checked={acceptLoss}
                  onChange={(event) => setAcceptLoss((event.target as HTMLInputElement).checked)}
                />
                <span>
                  Apply it anyway and lose this data (<code>--accept-data-loss</code>):{" "}
                  {plan.risks.map((risk) => risk.text).join("; ")}
                </span>
              </label>
            </section>
          )}
          {plan.breaks.length > 0 && (
            <section class="card danger-zone" aria-labelledby="breaks-title">
              <h2 id="breaks-title">Breaks of published versions</h2>
              <p class="muted small">
                A published version may only grow: its clients would trip on these. Make the change in a new version, or
                accept the breaks on purpose.
              </p>
              <ul class="risks mono">
                {plan.breaks.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              {plan.brokenVersions.map((version) => (
                <label class="confirm" key={version}>
                  <input
                    type="checkbox"
                    id={`allow-breaking-${version}`}
                    checked={allowed.includes(version)}
                    onChange={(event) =>
                      setAllowed(
                        (event.target as HTMLInputElement).checked
                          ? [...allowed, version]
                          : allowed.filter((label) => label !== version),
                      )
                    }
                  />
                  <span>
                    Break {version} on purpose (<code>--allow-breaking {version}</code>):{" "}
                    {plan.breaks.filter((line) => line.startsWith(`${version}:`)).length} breaks listed above
                  </span>
                </label>
              ))}
            </section>
          )}
          <section class="card apply" aria-labelledby="apply-title">
            <h2 id="apply-title">Apply</h2>
            <p class="muted small">
              Runs <code>tablegen generate</code>
              {allowed.length > 0 && <code> --allow-breaking {allowed.join(",")}</code>}, then{" "}
              <code>tablegen migrate</code>
              {acceptLoss && <code> --accept-data-loss</code>} on {detail.dir}; a running server is restarted.
            </p>
            <div class="form-actions">
              <button
                type="button"
                class="button primary"
                disabled={blocked || nothing}
                onClick={() => void applyChanges()}
              >
                {running ? "Applying…" : "Apply changes"}
              </button>
              {!running && needsLoss && !acceptLoss && <span class="hint">Confirm the data loss above first.</span>}
              {!running && missingBreaks.length > 0 && (
                <span class="hint">Accept the breaks of {missingBreaks.join(", ")} above first.</span>
              )}
            </div>
            <ProgressLog lines={lines} running={running} label="Applying the changes" />
            {outcome?.kind === "success" && <Notice kind="success">{outcome.text}</Notice>}
            {outcome?.kind === "error" && (
              <>
                <FieldError id="apply" message={outcome.text} />
              </>
            )}
          </section>
        </>
      )}
    </div>
  );
}
