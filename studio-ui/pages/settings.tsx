import { useEffect, useState } from "preact/hooks";
import type { NewScopedKey, ProjectDetail, SettingsView } from "../../src/studio/protocol.ts";
import { api, ApiError } from "../api.ts";
import { useStudio } from "../app.tsx";
import {
  Badge,
  controlId,
  CopyBlock,
  errorProps,
  FieldError,
  Notice,
  Outcome,
  PageHeader,
  type Outcome as OutcomeMessage,
} from "../components.tsx";
import { versionsOf, type ManifestData } from "./tables.tsx";

/**
 * A project's settings: the API signature key (masked; revealed, copied or rotated with the
 * server's comma-separated rotation), the scoped keys (made, listed and revoked as `tablegen keys`
 * does), the database URL (its password masked), and the versions
 * with their deprecation and sunset dates (written into the manifest like any edit).
 */
export function SettingsPage() {
  const { project, reloadProject } = useStudio();
  const detail = project!;
  const [settings, setSettings] = useState<SettingsView>();
  const [error, setError] = useState<string>();
  const path = `/api/projects/${encodeURIComponent(detail.id)}/settings`;

  useEffect(() => {
    api<SettingsView>("GET", path).then(setSettings, (failure: Error) => setError(failure.message));
  }, [detail.hash]);

  if (!settings)
    return <div class="page">{error ? <Notice kind="error">{error}</Notice> : <p class="loading">Loading…</p>}</div>;
  return (
    <div class="page settings-page">
      <PageHeader title="Settings" />
      <KeySection settings={settings} path={path} update={setSettings} reload={reloadProject} />
      <ScopedKeysSection settings={settings} path={path} update={setSettings} />
      <DatabaseSection settings={settings} path={path} update={setSettings} />
      <VersionsSection detail={detail} reload={reloadProject} />
    </div>
  );
}

/** What a section of the page is given: the settings, their API path, and how to show new ones. */
interface SectionProps {
  settings: SettingsView;
  path: string;
  update: (settings: SettingsView) => void;
}

function KeySection({ settings, path, update, reload }: SectionProps & { reload: () => Promise<void> }) {
  const [revealed, setRevealed] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<OutcomeMessage>();
  const fromEnvironment = settings.keyFrom === "environment";

  const reveal = async () => {
    try {
      return (await api<{ key: string }>("POST", `${path}/key/reveal`)).key;
    } catch (error) {
      setMessage({ kind: "error", text: (error as Error).message });
      return undefined;
    }
  };
  const act = async (action: "rotate" | "finish") => {
    try {
      const next = await api<SettingsView>("POST", `${path}/key/${action}`);
      update(next);
      setRevealed(undefined);
      setConfirming(false);
      setMessage({
        kind: "success",
        text:
          action === "rotate"
            ? "A new key leads the rotation; the old one still works until you finish it. A running server was restarted with both."
            : "Rotation finished: only the new key is accepted now.",
      });
      await reload();
    } catch (error) {
      setMessage({ kind: "error", text: (error as Error).message });
    }
  };

  return (
    <section class="card" aria-labelledby="key-title">
      <h2 id="key-title">API signature key</h2>
      <p class="muted small">
        Every request to the server carries it in <span class="mono">X-API-SIGNATURE</span>. It lives in the project's
        .env{fromEnvironment ? ", but the environment the studio runs in sets it, and wins" : ""}; the studio never logs
        it.
      </p>
      <div class="key-row">
        <label for="api-key">Key</label>
        <output id="api-key" class="mono key" aria-live="polite">
          {revealed ?? settings.key ?? "none"}
        </output>
        <button
          type="button"
          class="button small"
          aria-pressed={revealed !== undefined}
          onClick={async () => setRevealed(revealed ? undefined : await reveal())}
        >
          {revealed ? "Hide" : "Reveal"}
        </button>
        <button
          type="button"
          class="button small"
          onClick={async () => {
            const key = await reveal();
            if (key === undefined) return;
            await navigator.clipboard.writeText(key).then(
              () => setMessage({ kind: "success", text: "Copied the key." }),
              () =>
                setMessage({ kind: "error", text: "The browser did not allow copying: reveal the key and copy it." }),
            );
          }}
        >
          Copy
        </button>
      </div>
      {settings.keys > 1 && (
        <Notice kind="warning" title="Rotation under way">
          The server accepts {settings.keys} keys: the new one (shown) and {settings.keys - 1} older. Move your clients
          to the new key, then finish the rotation.
        </Notice>
      )}
      <div class="form-actions">
        {confirming ? (
          <>
            <span>A new key is made and put first; the current one keeps working until you finish the rotation.</span>
            <button type="button" class="button primary" disabled={fromEnvironment} onClick={() => void act("rotate")}>
              Rotate now
            </button>
            <button type="button" class="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" class="button" disabled={fromEnvironment} onClick={() => setConfirming(true)}>
            Rotate key
          </button>
        )}
        {settings.keys > 1 && (
          <button type="button" class="button" disabled={fromEnvironment} onClick={() => void act("finish")}>
            Finish rotation (drop the old keys)
          </button>
        )}
      </div>
      <Outcome id="api-key-action" message={message} />
    </section>
  );
}

interface KeyForm {
  name: string;
  scope: string;
  expires: string;
  limit: string;
}

const EMPTY_KEY: KeyForm = { name: "", scope: "", expires: "", limit: "" };

/**
 * Keys to hand out (API_KEY_<NAME> in the .env, as `tablegen keys new | list | revoke` writes
 * them): each with a scope, an optional expiry and rate limit. A new key's secret is shown once.
 */
function ScopedKeysSection({ settings, path, update }: SectionProps) {
  const [form, setForm] = useState<KeyForm>(EMPTY_KEY);
  const [problems, setProblems] = useState<Partial<KeyForm>>({});
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const [revoking, setRevoking] = useState<string>();
  const [message, setMessage] = useState<OutcomeMessage>();
  const [busy, setBusy] = useState(false);

  const field = (name: keyof KeyForm, label: string, placeholder: string, hint?: string) => {
    const id = controlId("new-key", name);
    return (
      <div class={`form-field${name === "scope" ? " grow" : ""}`}>
        <label for={id}>{label}</label>
        <input
          id={id}
          value={form[name]}
          placeholder={placeholder}
          autoComplete="off"
          spellcheck={false}
          onInput={(event) => setForm({ ...form, [name]: (event.target as HTMLInputElement).value })}
          {...errorProps(id, problems[name])}
        />
        {hint && !problems[name] && <span class="muted small">{hint}</span>}
        <FieldError id={id} message={problems[name]} />
      </div>
    );
  };

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await api<NewScopedKey>("POST", `${path}/keys`, form);
      update(answer.settings);
      setCreated({ name: answer.name, secret: answer.secret });
      setForm(EMPTY_KEY);
      setProblems({});
      setMessage(undefined);
    } catch (error) {
      const located = error instanceof ApiError ? error.problems : [];
      setProblems(Object.fromEntries(located.map((problem) => [problem.path[0], problem.message])));
      if (located.length === 0) setMessage({ kind: "error", text: (error as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (name: string) => {
    try {
      update(await api<SettingsView>("DELETE", `${path}/keys/${encodeURIComponent(name)}`));
      setRevoking(undefined);
      if (created?.name === name) setCreated(undefined);
      setMessage({ kind: "success", text: `Revoked ${name}: the server no longer accepts it.` });
    } catch (error) {
      setMessage({ kind: "error", text: (error as Error).message });
    }
  };

  return (
    <section class="card" aria-labelledby="scoped-keys-title">
      <h2 id="scoped-keys-title">Scoped keys</h2>
      <p class="muted small">
        Keys to hand out, each limited to what its scope names (<span class="mono">posts:read</span>,{" "}
        <span class="mono">comments:write</span>, <span class="mono">*:read</span>), with an optional expiry and rate
        limit. The .env keeps only their hash, as <span class="mono">tablegen keys</span> writes it; a running server is
        restarted to take them up.
      </p>
      {settings.scopedKeysProblem && <Notice kind="error">{settings.scopedKeysProblem}</Notice>}
      <div class="table-wrap">
        <table class="grid scoped-keys" aria-label="Scoped keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Limit</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {settings.scopedKeys.length === 0 && (
              <tr>
                <td colSpan={5} class="empty">
                  No scoped keys yet: every client uses the signature key above.
                </td>
              </tr>
            )}
            {settings.scopedKeys.map((key) => (
              <tr key={key.name}>
                <th scope="row" class="mono">
                  {key.name}
                </th>
                <td class="mono">
                  {key.scope}
                  {key.stale && (
                    <p class="field-error" role="alert">
                      {key.stale}
                    </p>
                  )}
                </td>
                <td class="mono">{key.limit ?? "none"}</td>
                <td>
                  {key.expires ?? "never"} {key.expired && <Badge kind="danger">expired</Badge>}
                </td>
                <td class="actions">
                  {revoking === key.name ? (
                    <>
                      <button
                        type="button"
                        class="button small danger"
                        aria-label={`Confirm: revoke ${key.name}`}
                        onClick={() => void revoke(key.name)}
                      >
                        Revoke now
                      </button>
                      <button type="button" class="button small" onClick={() => setRevoking(undefined)}>
                        Cancel
                      </button>
                    </>
                  ) : (
                    <button
                      type="button"
                      class="button small"
                      aria-label={`Revoke ${key.name}`}
                      onClick={() => setRevoking(key.name)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {created && (
        <Notice kind="success" title={`Key ${created.name} made`}>
          <p>Copy its secret now: it is shown this once (the .env keeps only its hash).</p>
          <CopyBlock text={created.secret} label={`secret of ${created.name}`} />
        </Notice>
      )}
      <form class="form new-key" aria-label="New scoped key" onSubmit={(event) => void create(event)}>
        <div class="form-row">
          {field("name", "Name", "mobile", "lower-case letters, digits and _")}
          {field(
            "scope",
            "Scope",
            "posts:read,comments:write",
            "table or query, then read, write or an action (list, create…); * for all",
          )}
          {field("expires", "Expires (optional)", "90d", "a duration (90d, 12h, 2w) or a date")}
          {field("limit", "Rate limit (optional)", "100/min")}
        </div>
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? "Making the key…" : "Make key"}
          </button>
        </div>
      </form>
      <Outcome id="scoped-keys-action" message={message} />
    </section>
  );
}

function DatabaseSection({ settings, path, update }: SectionProps) {
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const fromEnvironment = settings.databaseUrlFrom === "environment";
  return (
    <section class="card" aria-labelledby="database-title">
      <h2 id="database-title">Database</h2>
      <div class="key-row">
        <span class="label">DATABASE_URL</span>
        <span class="mono key" aria-label="Database URL, password masked">
          {settings.databaseUrl ?? "not set"}
        </span>
        <span class="muted small">
          {settings.databaseUrlFrom === "default"
            ? "(the default: not set in .env)"
            : settings.databaseUrlFrom === "environment"
              ? "(from the environment, which wins over .env)"
              : settings.databaseUrlFrom === "env file"
                ? "(from .env)"
                : ""}
        </span>
        {!editing && (
          <button type="button" class="button small" disabled={fromEnvironment} onClick={() => setEditing(true)}>
            Change
          </button>
        )}
      </div>
      {editing && (
        <form
          class="form"
          onSubmit={async (event) => {
            event.preventDefault();
            try {
              update(await api<SettingsView>("PUT", `${path}/database-url`, { url }));
              setEditing(false);
              setError(undefined);
              setUrl("");
              setSaved(true);
            } catch (failure) {
              setError((failure as ApiError).message);
            }
          }}
        >
          <div class="form-field">
            <label for="database-url">New DATABASE_URL (written to .env; the password is never shown again)</label>
            <input
              id="database-url"
              type="password"
              autoComplete="off"
              value={url}
              placeholder="postgresql://user:password@localhost:5432/app"
              onInput={(event) => setUrl((event.target as HTMLInputElement).value)}
              {...errorProps("database-url", error)}
            />
            <FieldError id="database-url" message={error} />
          </div>
          <div class="form-actions">
            <button type="submit" class="button primary">
              Save URL
            </button>
            <button type="button" class="button" onClick={() => (setEditing(false), setError(undefined))}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {saved && !editing && <Notice kind="success">Saved DATABASE_URL in .env; a running server was restarted.</Notice>}
    </section>
  );
}

interface VersionRow {
  label: string;
  deprecated: boolean;
  since: string;
  sunset: string;
}

function VersionsSection({ detail, reload }: { detail: ProjectDetail; reload: () => Promise<void> }) {
  const manifest = detail.manifest as ManifestData | undefined;
  const initial = (): VersionRow[] => {
    if (!manifest) return [];
    const versions = manifest.versions;
    return versionsOf(manifest).map((label) => {
      const policy = versions && !Array.isArray(versions) ? versions[label] : undefined;
      return {
        label,
        deprecated: policy?.deprecated !== undefined && policy.deprecated !== false,
        since: typeof policy?.deprecated === "string" ? policy.deprecated : "",
        sunset: policy?.sunset ?? "",
      };
    });
  };
  const [rows, setRows] = useState<VersionRow[]>(initial);
  const [problems, setProblems] = useState<{ path: (string | number)[]; message: string }[]>([]);
  const [message, setMessage] = useState<OutcomeMessage>();
  useEffect(() => setRows(initial()), [detail.hash]);
  if (!manifest) return null;

  const at = (...path: (string | number)[]) =>
    problems
      .filter((problem) => path.every((part, index) => problem.path[index] === part))
      .map((problem) => problem.message)
      .join("; ") || undefined;

  const save = async () => {
    const policies = rows.some((row) => row.deprecated || row.sunset);
    const versions = policies
      ? Object.fromEntries(
          rows.map((row) => [
            row.label,
            {
              ...(row.deprecated && { deprecated: row.since || true }),
              ...(row.sunset && { sunset: row.sunset }),
            },
          ]),
        )
      : rows.map((row) => row.label);
    try {
      await api("PUT", `/api/projects/${encodeURIComponent(detail.id)}/manifest`, {
        manifest: { ...manifest, versions },
        hash: detail.hash,
      });
      setProblems([]);
      setMessage({ kind: "success", text: `Saved the versions in ${detail.file}. Apply them on the Changes page.` });
      await reload();
    } catch (error) {
      setProblems(error instanceof ApiError ? error.problems : []);
      setMessage({ kind: "error", text: (error as Error).message });
    }
  };

  return (
    <section class="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <p class="muted small">
        A deprecated version's answers carry a Deprecation header, and a Sunset header with its last date.
      </p>
      <div class="table-wrap versions-wrap">
        <table class="grid versions" aria-label="Versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Deprecated</th>
              <th scope="col">Since (YYYY-MM-DD)</th>
              <th scope="col">Sunset (YYYY-MM-DD)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const id = (part: string) => controlId("version", row.label, part);
              const set = (change: Partial<VersionRow>) =>
                setRows(rows.map((other, i) => (i === index ? { ...other, ...change } : other)));
              return (
                <tr key={row.label}>
                  <th scope="row" class="mono">
                    {row.label}
                  </th>
                  <td>
                    <input
                      type="checkbox"
                      id={id("deprecated")}
                      aria-label={`${row.label} is deprecated`}
                      checked={row.deprecated}
                      onChange={(event) => set({ deprecated: (event.target as HTMLInputElement).checked })}
                    />
                  </td>
                  <td>
                    <input
                      id={id("since")}
                      aria-label={`${row.label} deprecated since`}
                      value={row.since}
                      disabled={!row.deprecated}
                      placeholder="2026-01-31"
                      onInput={(event) => set({ since: (event.target as HTMLInputElement).value })}
                      {...errorProps(id("since"), at("versions", row.label, "deprecated"))}
                    />
                    <FieldError id={id("since")} message={at("versions", row.label, "deprecated")} />
                  </td>
                  <td>
                    <input
                      id={id("sunset")}
                      aria-label={`${row.label} sunset date`}
                      value={row.sunset}
                      placeholder="2026-12-31"
                      onInput={(event) => set({ sunset: (event.target as HTMLInputElement).value })}
                      {...errorProps(id("sunset"), at("versions", row.label, "sunset"))}
                    />
                    <FieldError id={id("sunset")} message={at("versions", row.label, "sunset")} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div class="form-actions">
        <button
          type="button"
          class="button"
          onClick={() => {
            const numbers = rows.map((row) => Number(row.label.slice(1))).filter(Number.isFinite);
            setRows([...rows, { label: `v${Math.max(0, ...numbers) + 1}`, deprecated: false, since: "", sunset: "" }]);
          }}
        >
          + Add version
        </button>
        <button type="button" class="button primary" onClick={() => void save()}>
          Save versions
        </button>
      </div>
      <Outcome id="versions-save" message={message} />
    </section>
  );
}
