import { useEffect, useRef, useState } from "preact/hooks";
import type { ProjectDetail, ProblemAt, RelationView, Rename, ValidateAnswer } from "../../src/studio/protocol.ts";
import { api, ApiError } from "../api.ts";
import { useStudio } from "../app.tsx";
import { controlId, errorProps, FieldError, Notice, PageHeader } from "../components.tsx";
import { CodeEditor } from "../editor.tsx";
import { relationHints } from "../relation-hints.ts";

/**
 * The table designer: the manifest's tables, fields and custom queries as forms. Every edit is
 * validated by the studio's server with the CLI's validator (and the custom queries' check), each
 * problem shown at its control; Save writes tablegen.yaml through the YAML document, keeping the
 * user's comments and layout.
 */

export const FIELD_TYPES = ["TEXT", "PARAGRAPH", "EMAIL", "PHONE", "NUMBER", "BOOLEAN", "DATETIME"] as const;

/** A field's yes-or-no options, each a checkbox of its row: the option, its accessible name, its narrow-window title. */
const FLAGS = [
  ["required", (name: string) => `${name} is required`, "Required"],
  ["unique", (name: string) => `${name} is unique`, "Unique"],
  ["index", (name: string) => `Index ${name}`, "Index"],
] as const;
const TEXT_TYPES = new Set(["TEXT", "PARAGRAPH", "EMAIL", "PHONE"]);
const ON_DELETE = [
  ["restrict", "restrict (refuse while referenced)"],
  ["cascade", "cascade (delete with it)"],
  ["setNull", "set null"],
] as const;

export interface FieldData {
  type: string;
  required?: boolean;
  unique?: boolean;
  default?: string | number | boolean;
  maxLength?: number;
  integer?: boolean;
  references?: string;
  onDelete?: string;
  as?: string;
  reverse?: string;
  renamedFrom?: string;
  index?: boolean;
  description?: string;
  versions?: string[];
  names?: Record<string, string>;
  [other: string]: unknown;
}

export interface TableData {
  id?: string;
  versions?: string[];
  renamedFrom?: string;
  description?: string;
  fields: Record<string, FieldData | string>;
  indexes?: string[][];
  [other: string]: unknown;
}

export interface QueryData {
  versions?: string[];
  params?: Record<string, string>;
  sql: string;
  description?: string;
  [other: string]: unknown;
}

export interface ManifestData {
  project: string;
  database?: string;
  versions?: string[] | Record<string, { deprecated?: boolean | string; sunset?: string }>;
  tables: Record<string, TableData>;
  queries?: Record<string, QueryData>;
  [other: string]: unknown;
}

export interface TablesDraft {
  manifest: ManifestData;
  /** The tables and fields the latest migration made: a rename of one of them keeps its data (renamedFrom). */
  applied: Record<string, string[]>;
  renames: Rename[];
  hash: string;
  dirty: boolean;
}

type Selection = { kind: "table" | "query"; name: string } | undefined;

export function versionsOf(manifest: ManifestData): string[] {
  const versions = manifest.versions;
  if (versions === undefined) return ["v1"];
  return Array.isArray(versions) ? versions : Object.keys(versions);
}

export const fieldObject = (field: FieldData | string): FieldData =>
  typeof field === "string" ? { type: field } : field;

function freshDraft(project: ProjectDetail): TablesDraft | undefined {
  const manifest = project.manifest as ManifestData | undefined;
  if (!manifest || typeof manifest !== "object" || typeof manifest.tables !== "object" || manifest.tables === null)
    return undefined;
  return {
    manifest: structuredClone(manifest),
    applied: project.applied ?? {},
    renames: [],
    hash: project.hash,
    dirty: false,
  };
}

/** A name not taken in `taken`: base, base_2, base_3… */
function unusedName(base: string, taken: object): string {
  if (!(base in taken)) return base;
  for (let n = 2; ; n++) if (!(`${base}_${n}` in taken)) return `${base}_${n}`;
}

/** The entries of a record with one key renamed, in place. */
function renamedKey<T>(record: Record<string, T>, from: string, to: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key === from ? to : key, value]));
}

const samePath = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((part, index) => part === b[index]);
const under = (path: readonly unknown[], prefix: readonly unknown[]) =>
  path.length >= prefix.length && prefix.every((part, index) => path[index] === part);

export function TablesPage() {
  const { project, reloadProject, drafts } = useStudio();
  const detail = project!;
  const [draft, setDraftState] = useState<TablesDraft | undefined>(() => {
    // Unsaved edits wait here while the user visits other pages; what the database has may have changed meanwhile.
    const kept = drafts.get(detail.id);
    return kept?.dirty ? { ...kept, applied: detail.applied ?? {} } : freshDraft(detail);
  });
  const [problems, setProblems] = useState<ProblemAt[]>(detail.problems);
  const [text, setText] = useState(detail.text);
  const [selection, setSelection] = useState<Selection>(() => {
    const first = draft && Object.keys(draft.manifest.tables)[0];
    return first ? { kind: "table", name: first } : undefined;
  });
  const [checked, setChecked] = useState<TablesDraft | undefined>(undefined);
  /** The last check could not run (its message is the page's notice): the problems shown are older. */
  const [unchecked, setUnchecked] = useState(false);
  /**
   * What `expand` names on each table, as the last valid draft gives them (none while it has
   * problems); shown only for the draft it is of (a field just made a reference is in no older one).
   */
  const [relations, setRelations] = useState<Relations>();
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<{ kind: "success" | "error"; title?: string; text: string; stale?: boolean }>();
  const [showYaml, setShowYaml] = useState(false);

  const setDraft = (next: TablesDraft) => {
    drafts.set(detail.id, next);
    setDraftState(next);
  };

  /** Applies an edit to a copy of the manifest (of the latest draft: edits that come fast are all kept). */
  const edit = (change: (manifest: ManifestData, renames: Rename[]) => void) => {
    setDraftState((current) => {
      if (!current) return current;
      const manifest = structuredClone(current.manifest);
      const renames = [...current.renames];
      change(manifest, renames);
      const next = { ...current, manifest, renames, dirty: true };
      drafts.set(detail.id, next);
      return next;
    });
    setNotice(undefined);
  };

  // Live validation, a moment after the last edit; one check at a time (a PostgreSQL project's
  // custom queries take a second or more in PGlite): edits made meanwhile are checked next, together.
  const latest = useRef(draft);
  latest.current = draft;
  const running = useRef(false);
  const check = async () => {
    if (running.current) return;
    running.current = true;
    try {
      for (let current = latest.current; current; current = latest.current) {
        const answer = await api<ValidateAnswer>("POST", `/api/projects/${encodeURIComponent(detail.id)}/validate`, {
          manifest: current.manifest,
          renames: current.renames,
        }).catch((error: Error) => error);
        // Edited meanwhile (that draft's own timer found this check running): what came back, an
        // answer or a failure, says nothing of the newest draft, which is checked next.
        if (latest.current !== current) continue;
        if (answer instanceof Error) {
          setNotice({ kind: "error", title: "The draft could not be checked", text: answer.message });
        } else {
          setProblems(answer.problems);
          setText(answer.text);
          setRelations(answer.relations);
        }
        setUnchecked(answer instanceof Error);
        setChecked(current);
        break;
      }
    } finally {
      running.current = false;
    }
  };
  useEffect(() => {
    if (!draft) return;
    const timer = setTimeout(() => void check(), 250);
    return () => clearTimeout(timer);
  }, [draft?.manifest, draft?.renames]);
  /** The draft the problems shown are of: another one is being checked. */
  const checking = checked !== draft;

  if (!draft) {
    return (
      <div class="page">
        <PageHeader title="Tables" />
        <Notice kind="error" title={`${detail.file} cannot be read as a manifest`}>
          <pre class="message">{detail.invalid}</pre>
          Fix it in an editor, then reload this page.
        </Notice>
      </div>
    );
  }

  const manifest = draft.manifest;
  const versions = versionsOf(manifest);
  const tableNames = Object.keys(manifest.tables);
  const queryNames = Object.keys(manifest.queries ?? {});
  const selected =
    selection && (selection.kind === "table" ? manifest.tables[selection.name] : manifest.queries?.[selection.name])
      ? selection
      : tableNames[0]
        ? ({ kind: "table", name: tableNames[0] } as const)
        : undefined;

  const save = async () => {
    setSaving(true);
    try {
      const saved = await api<ProjectDetail>("PUT", `/api/projects/${encodeURIComponent(detail.id)}/manifest`, {
        manifest: draft.manifest,
        renames: draft.renames,
        hash: draft.hash,
      });
      const next = freshDraft(saved)!;
      setDraft(next);
      setProblems([]);
      setNotice({ kind: "success", text: `Saved ${saved.file}. The Changes page shows what applying it does.` });
      await reloadProject();
    } catch (error) {
      if (error instanceof ApiError && error.problems.length > 0) setProblems(error.problems);
      setNotice({
        kind: "error",
        text: (error as Error).message,
        stale: error instanceof ApiError && error.status === 409,
      });
    } finally {
      setSaving(false);
    }
  };

  const discard = async () => {
    drafts.delete(detail.id);
    await reloadProject();
    const fresh = freshDraft(detail);
    if (fresh) setDraft(fresh);
    setNotice(undefined);
  };

  const shownProblems = problems.filter((problem) => !isPlaced(problem, manifest, selected));
  const schema = Object.fromEntries(
    Object.entries(manifest.tables).map(([name, table]) => [name, ["id", ...Object.keys(table.fields ?? {})]]),
  );

  return (
    <div class="page tables-page">
      <PageHeader title="Tables">
        <span
          class={`status-text${checking ? " checking" : unchecked || problems.length > 0 ? " bad" : ""}`}
          role="status"
          aria-live="polite"
        >
          {checking
            ? "Checking…"
            : unchecked
              ? "Not checked"
              : problems.length > 0
                ? `${problems.length} ${problems.length === 1 ? "problem" : "problems"}`
                : draft.dirty
                  ? "Valid · unsaved changes"
                  : "Valid · saved"}
        </span>
        <button type="button" class="button" onClick={() => setShowYaml(!showYaml)} aria-pressed={showYaml}>
          {showYaml ? "Hide YAML" : "Show YAML"}
        </button>
        <button type="button" class="button" disabled={!draft.dirty || saving} onClick={() => void discard()}>
          Discard changes
        </button>
        <button type="button" class="button primary" disabled={!draft.dirty || saving} onClick={() => void save()}>
          {saving ? "Saving…" : `Save ${detail.file}`}
        </button>
      </PageHeader>
      {notice && (
        <Notice kind={notice.kind} title={notice.title}>
          <pre class="message">{notice.text}</pre>
          {notice.stale && (
            <button type="button" class="button small" onClick={() => void discard()}>
              Reload from disk (drops the edits here)
            </button>
          )}
        </Notice>
      )}
      {shownProblems.length > 0 && (
        <Notice kind="error" title="Problems">
          <ul class="problems">
            {shownProblems.map((problem, index) => (
              <li key={index}>
                <code>{problem.path.join(".") || detail.file}</code>: {problem.message}
                {problem.path[0] === "tables" &&
                  typeof problem.path[1] === "string" &&
                  manifest.tables[problem.path[1]] && (
                    <>
                      {" "}
                      <button
                        type="button"
                        class="link-button"
                        onClick={() => setSelection({ kind: "table", name: problem.path[1] as string })}
                      >
                        show {problem.path[1]}
                      </button>
                    </>
                  )}
                {problem.path[0] === "queries" &&
                  typeof problem.path[1] === "string" &&
                  manifest.queries?.[problem.path[1]] && (
                    <>
                      {" "}
                      <button
                        type="button"
                        class="link-button"
                        onClick={() => setSelection({ kind: "query", name: problem.path[1] as string })}
                      >
                        show {problem.path[1]}
                      </button>
                    </>
                  )}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      {showYaml && (
        <section class="card" aria-label={`${detail.file} as it would be saved`}>
          <h2>{detail.file} as it would be saved</h2>
          <CodeEditor value={text} language="yaml" label={`${detail.file} as it would be saved`} readOnly />
        </section>
      )}
      <div class="designer">
        <aside class="designer-list" aria-label="Tables and queries">
          <h2 class="list-title">Tables</h2>
          <ul>
            {tableNames.map((name) => (
              <li key={name}>
                <button
                  type="button"
                  class={`list-item${selected?.kind === "table" && selected.name === name ? " selected" : ""}`}
                  aria-current={selected?.kind === "table" && selected.name === name ? "true" : undefined}
                  onClick={() => setSelection({ kind: "table", name })}
                >
                  <span>{name}</span>
                  <span class="count">{Object.keys(manifest.tables[name]!.fields ?? {}).length}</span>
                  {problems.some((problem) => under(problem.path, ["tables", name])) && (
                    <span class="dot bad" aria-label="(has problems)" />
                  )}
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="button small wide"
            onClick={() => {
              const name = unusedName("new_table", manifest.tables);
              edit((next) => {
                next.tables[name] = { fields: { name: { type: "TEXT", required: true } } };
              });
              setSelection({ kind: "table", name });
            }}
          >
            + Add table
          </button>
          <h2 class="list-title">Custom queries</h2>
          <ul>
            {queryNames.map((name) => (
              <li key={name}>
                <button
                  type="button"
                  class={`list-item${selected?.kind === "query" && selected.name === name ? " selected" : ""}`}
                  aria-current={selected?.kind === "query" && selected.name === name ? "true" : undefined}
                  onClick={() => setSelection({ kind: "query", name })}
                >
                  <span>{name}</span>
                  {problems.some((problem) => under(problem.path, ["queries", name])) && (
                    <span class="dot bad" aria-label="(has problems)" />
                  )}
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="button small wide"
            onClick={() => {
              const name = unusedName("new_query", manifest.queries ?? {});
              const first = tableNames[0] ?? "items";
              edit((next) => {
                next.queries = { ...(next.queries ?? {}), [name]: { sql: `SELECT id FROM ${first} ORDER BY id` } };
              });
              setSelection({ kind: "query", name });
            }}
          >
            + Add query
          </button>
        </aside>
        <div class="designer-main">
          {selected?.kind === "table" && (
            <TableEditor
              key={selected.name}
              name={selected.name}
              manifest={manifest}
              applied={draft.applied}
              versions={versions}
              problems={problems}
              relations={checking ? undefined : relations}
              edit={edit}
              select={(name) => setSelection(name === undefined ? undefined : { kind: "table", name })}
            />
          )}
          {selected?.kind === "query" && (
            <QueryEditor
              key={selected.name}
              name={selected.name}
              manifest={manifest}
              versions={versions}
              problems={problems}
              edit={edit}
              schema={schema}
              select={(name) => setSelection(name === undefined ? undefined : { kind: "query", name })}
            />
          )}
          {!selected && <Notice kind="info">No table yet: add one.</Notice>}
        </div>
      </div>
    </div>
  );
}

/** Whether a problem is shown at a control of the page as it is (else it is listed at the top). */
function isPlaced(problem: ProblemAt, manifest: ManifestData, selected: Selection): boolean {
  const [section, name, group, field, option] = problem.path;
  if (!selected || name !== selected.name) return false;
  if (section === "tables" && selected.kind === "table") {
    if (problem.path.length === 2) return true;
    if (group === "fields" && typeof field === "string" && manifest.tables[name]?.fields[field] !== undefined)
      return option === undefined || FIELD_OPTIONS.has(String(option));
    return ["id", "versions", "description", "indexes", "renamedFrom", "fields"].includes(String(group));
  }
  if (section === "queries" && selected.kind === "query") {
    return problem.path.length === 2 || ["sql", "params", "versions", "description"].includes(String(group));
  }
  return false;
}

const FIELD_OPTIONS = new Set([
  "type",
  "required",
  "unique",
  "default",
  "maxLength",
  "integer",
  "references",
  "onDelete",
  "as",
  "reverse",
  "index",
  "description",
  "versions",
  "names",
  "renamedFrom",
]);

/** The message of the problems exactly at `path`, or (with `deep`) anywhere under it. */
function messageAt(problems: ProblemAt[], path: (string | number)[], deep = false): string | undefined {
  const found = problems.filter((problem) => (deep ? under(problem.path, path) : samePath(problem.path, path)));
  return found.length > 0 ? found.map((problem) => problem.message).join("; ") : undefined;
}

type Edit = (change: (manifest: ManifestData, renames: Rename[]) => void) => void;

/** The relations each table can expand, by table: the studio server's answer from the generator's model. */
type Relations = Record<string, RelationView[]>;

/**
 * A text input whose value is the user's while they type: a render that lands meanwhile (the
 * validation's answer to an earlier edit) does not put the draft's value back, as a controlled
 * input's would; the edit is made when they are done (change).
 */
function TypedInput({
  value,
  onCommit,
  type = "text",
  ...props
}: {
  value: string;
  onCommit: (value: string) => void;
  id: string;
  class?: string;
  type?: "text" | "number";
  min?: number;
  placeholder?: string;
  disabled?: boolean;
  spellcheck?: boolean;
  autoComplete?: "off";
  "aria-label"?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  const [typed, setTyped] = useState(value);
  useEffect(() => setTyped(value), [value]);
  return (
    <input
      // The type and the rest as given (a type chosen at run time fits none of preact's input variants).
      {...({ ...props, type } as object)}
      value={typed}
      onInput={(event) => setTyped(event.currentTarget.value)}
      onChange={(event) => {
        const next = event.currentTarget.value;
        if (next !== value) onCommit(next);
        else setTyped(value);
      }}
    />
  );
}

/** A name input that renames when the user is done typing (change), not at each key. */
function NameInput({
  id,
  value,
  label,
  onRename,
  error,
}: {
  id: string;
  value: string;
  label: string;
  onRename: (name: string) => void;
  error?: string | undefined;
}) {
  const [typed, setTyped] = useState(value);
  useEffect(() => setTyped(value), [value]);
  return (
    <input
      id={id}
      class="name-input"
      aria-label={label}
      value={typed}
      spellcheck={false}
      autoComplete="off"
      onInput={(event) => setTyped((event.target as HTMLInputElement).value)}
      onChange={(event) => {
        const name = (event.target as HTMLInputElement).value.trim();
        if (name && name !== value) onRename(name);
        else setTyped(value);
      }}
      {...errorProps(id, error)}
    />
  );
}

function VersionChecks({
  id,
  versions,
  chosen,
  onChange,
  legend,
}: {
  id: string;
  versions: string[];
  chosen: string[] | undefined;
  onChange: (versions: string[] | undefined) => void;
  legend: string;
}) {
  return (
    <fieldset class="version-checks">
      <legend>{legend}</legend>
      {versions.map((version) => (
        <label key={version} class="inline-check">
          <input
            type="checkbox"
            id={controlId(id, version)}
            checked={chosen === undefined || chosen.includes(version)}
            onChange={(event) => {
              const on = (event.target as HTMLInputElement).checked;
              const current = chosen ?? versions;
              const next = on
                ? versions.filter((v) => v === version || current.includes(v))
                : current.filter((v) => v !== version);
              onChange(next.length === versions.length ? undefined : next);
            }}
          />
          {version}
        </label>
      ))}
    </fieldset>
  );
}

function TableEditor({
  name,
  manifest,
  applied,
  versions,
  problems,
  relations,
  edit,
  select,
}: {
  name: string;
  manifest: ManifestData;
  applied: Record<string, string[]>;
  versions: string[];
  problems: ProblemAt[];
  relations: Relations | undefined;
  edit: Edit;
  select: (name: string | undefined) => void;
}) {
  const table = manifest.tables[name]!;
  const base = controlId("table", name);
  const path = ["tables", name];
  const fieldNames = Object.keys(table.fields ?? {});
  const lastAdded = useRef<string | undefined>(undefined);

  useEffect(() => {
    if (lastAdded.current) {
      document.getElementById(controlId("field", name, lastAdded.current, "name"))?.focus();
      lastAdded.current = undefined;
    }
  });

  const renameTable = (to: string) => {
    edit((next, renames) => {
      next.tables = renamedKey(next.tables, name, to);
      const renamed = next.tables[to]!;
      // A table the database has keeps its rows: the migration renames it.
      const origin = renamed.renamedFrom ?? (applied[name] ? name : undefined);
      if (origin && origin !== to && applied[origin]) renamed.renamedFrom = origin;
      else delete renamed.renamedFrom;
      for (const other of Object.values(next.tables)) {
        for (const [fieldName, field] of Object.entries(other.fields ?? {})) {
          if (typeof field === "object" && field.references === name)
            other.fields[fieldName] = { ...field, references: to };
        }
      }
      renames.push({ path: ["tables"], from: name, to });
    });
    select(to);
  };

  const indexesText = (table.indexes ?? []).map((index) => index.join(", ")).join("\n");

  return (
    <section class="card editor" aria-labelledby={`${base}-title`}>
      <div class="editor-head">
        <h2 id={`${base}-title`}>
          Table <span class="mono">{name}</span>
        </h2>
        <button
          type="button"
          class="button danger small"
          onClick={() => {
            edit((next) => {
              delete next.tables[name];
            });
            select(undefined);
          }}
        >
          Remove table
        </button>
      </div>
      <FieldError id={base} message={messageAt(problems, path)} />
      <div class="form-row">
        <div class="form-field">
          <label for={`${base}-name`}>Name</label>
          <NameInput id={`${base}-name`} value={name} label="Table name" onRename={renameTable} />
          {table.renamedFrom && <p class="hint">Renamed from {table.renamedFrom}: the migration keeps its rows.</p>}
          <FieldError id={`${base}-name`} message={messageAt(problems, [...path, "renamedFrom"])} />
        </div>
        <div class="form-field">
          <label for={`${base}-id`}>Id</label>
          <select
            id={`${base}-id`}
            value={table.id ?? "number"}
            onChange={(event) =>
              edit((next) => {
                const value = (event.target as HTMLSelectElement).value;
                if (value === "number") delete next.tables[name]!.id;
                else next.tables[name]!.id = value;
              })
            }
            {...errorProps(`${base}-id`, messageAt(problems, [...path, "id"]))}
          >
            <option value="number">number (auto-increment)</option>
            <option value="uuid">uuid</option>
            <option value="bigint">bigint (64-bit, PostgreSQL)</option>
          </select>
          <FieldError id={`${base}-id`} message={messageAt(problems, [...path, "id"])} />
        </div>
        <div class="form-field grow">
          <label for={`${base}-description`}>Description</label>
          <TypedInput
            id={`${base}-description`}
            value={table.description ?? ""}
            placeholder="What the table holds"
            onCommit={(value) =>
              edit((next) => {
                if (value) next.tables[name]!.description = value;
                else delete next.tables[name]!.description;
              })
            }
          />
        </div>
      </div>
      {versions.length > 1 && (
        <>
          <VersionChecks
            id={`${base}-versions`}
            legend="Served in versions"
            versions={versions}
            chosen={table.versions}
            onChange={(chosen) =>
              edit((next) => {
                if (chosen) next.tables[name]!.versions = chosen;
                else delete next.tables[name]!.versions;
              })
            }
          />
          <FieldError id={`${base}-versions`} message={messageAt(problems, [...path, "versions"], true)} />
        </>
      )}
      <div class="fields-head">
        <h3>Fields</h3>
        <span class="muted small">
          Every table has an <span class="mono">id</span> of its own.
        </span>
      </div>
      <FieldError id={`${base}-fields`} message={messageAt(problems, [...path, "fields"])} />
      <div class="fields" role="list" aria-label={`Fields of ${name}`}>
        <div class="field-row field-labels" aria-hidden="true">
          <span>Name</span>
          <span>Type</span>
          <span>Required</span>
          <span>Unique</span>
          <span>Index</span>
          <span>Default</span>
          <span>Max len.</span>
          <span>References</span>
          <span />
        </div>
        {fieldNames.map((fieldName) => (
          <FieldRow
            key={fieldName}
            table={name}
            name={fieldName}
            manifest={manifest}
            applied={applied}
            versions={versions}
            problems={problems}
            relations={relations}
            edit={edit}
          />
        ))}
      </div>
      <button
        type="button"
        class="button small"
        onClick={() => {
          const fieldName = unusedName("new_field", table.fields ?? {});
          lastAdded.current = fieldName;
          edit((next) => {
            next.tables[name]!.fields = { ...next.tables[name]!.fields, [fieldName]: { type: "TEXT" } };
          });
        }}
      >
        + Add field
      </button>
      <div class="form-field indexes">
        <label for={`${base}-indexes`}>Composite indexes</label>
        <textarea
          id={`${base}-indexes`}
          rows={2}
          value={indexesText}
          placeholder="one a line: fields in order, comma-separated (user_id, created_at)"
          onChange={(event) =>
            edit((next) => {
              const lines = (event.target as HTMLTextAreaElement).value
                .split("\n")
                .map((line) =>
                  line
                    .split(",")
                    .map((part) => part.trim())
                    .filter(Boolean),
                )
                .filter((index) => index.length > 0);
              if (lines.length > 0) next.tables[name]!.indexes = lines;
              else delete next.tables[name]!.indexes;
            })
          }
          {...errorProps(`${base}-indexes`, messageAt(problems, [...path, "indexes"], true))}
        />
        <FieldError id={`${base}-indexes`} message={messageAt(problems, [...path, "indexes"], true)} />
      </div>
    </section>
  );
}

function FieldRow({
  table,
  name,
  manifest,
  applied,
  versions,
  problems,
  relations,
  edit,
}: {
  table: string;
  name: string;
  manifest: ManifestData;
  applied: Record<string, string[]>;
  versions: string[];
  problems: ProblemAt[];
  relations: Relations | undefined;
  edit: Edit;
}) {
  const field = fieldObject(manifest.tables[table]!.fields[name]!);
  const id = (option: string) => controlId("field", table, name, option);
  const path = ["tables", table, "fields", name];
  const at = (option: string) => messageAt(problems, [...path, option], true);
  const [more, setMore] = useState(false);
  const text = TEXT_TYPES.has(field.type);

  const update = (change: (field: FieldData) => void) =>
    edit((next) => {
      const current = fieldObject(next.tables[table]!.fields[name]!);
      const copy = { ...current };
      change(copy);
      next.tables[table]!.fields[name] = copy;
    });
  const set = (option: keyof FieldData, value: unknown) =>
    update((copy) => {
      if (value === undefined || value === false || value === "") delete copy[option];
      else copy[option] = value;
    });

  const rename = (to: string) =>
    edit((next, renames) => {
      const fields = next.tables[table]!.fields;
      const current = fieldObject(fields[name]!);
      const appliedFields = applied[next.tables[table]!.renamedFrom ?? table] ?? [];
      // A field the database has keeps its values: the migration renames its column.
      const origin = current.renamedFrom ?? (appliedFields.includes(name) ? name : undefined);
      const copy = { ...current };
      if (origin && origin !== to && appliedFields.includes(origin)) copy.renamedFrom = origin;
      else delete copy.renamedFrom;
      next.tables[table]!.fields = renamedKey({ ...fields, [name]: copy }, name, to);
      for (const index of next.tables[table]!.indexes ?? [])
        index.forEach((part, i) => part === name && (index[i] = to));
      renames.push({ path: ["tables", table, "fields"], from: name, to });
    });

  const rowError = messageAt(problems, path);
  const defaultValue = field.default === undefined ? "" : String(field.default);

  return (
    <div
      class={`field-block${rowError || problems.some((p) => under(p.path, path)) ? " has-error" : ""}`}
      role="listitem"
    >
      <div class="field-row">
        <NameInput id={id("name")} value={name} label={`Name of field ${name}`} onRename={rename} error={rowError} />
        <select
          id={id("type")}
          aria-label={`Type of ${name}`}
          value={field.type}
          onChange={(event) =>
            update((copy) => {
              copy.type = (event.target as HTMLSelectElement).value;
              if (!TEXT_TYPES.has(copy.type)) delete copy.maxLength;
              if (copy.type !== "NUMBER") delete copy.integer;
            })
          }
          {...errorProps(id("type"), at("type"))}
        >
          {FIELD_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
          {!FIELD_TYPES.includes(field.type as (typeof FIELD_TYPES)[number]) && (
            <option value={field.type}>{field.type}</option>
          )}
        </select>
        {FLAGS.map(([flag, label, title]) => (
          <label class="cell-check" key={flag}>
            <input
              type="checkbox"
              id={id(flag)}
              aria-label={label(name)}
              checked={field[flag] === true}
              onChange={(event) => set(flag, (event.target as HTMLInputElement).checked)}
            />
            <span class="narrow-only">{title}</span>
          </label>
        ))}
        {field.type === "BOOLEAN" ? (
          <select
            id={id("default")}
            aria-label={`Default of ${name}`}
            value={defaultValue}
            onChange={(event) => {
              const value = (event.target as HTMLSelectElement).value;
              set("default", value === "" ? undefined : value === "true");
            }}
            {...errorProps(id("default"), at("default"))}
          >
            <option value="">none</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : (
          <TypedInput
            id={id("default")}
            aria-label={`Default of ${name}`}
            value={defaultValue}
            placeholder={field.type === "DATETIME" ? "now" : "none"}
            onCommit={(value) => {
              const number = Number(value);
              set(
                "default",
                field.type === "NUMBER" && value.trim() !== "" && Number.isFinite(number) ? number : value,
              );
            }}
            {...errorProps(id("default"), at("default"))}
          />
        )}
        <TypedInput
          id={id("maxLength")}
          type="number"
          min={1}
          aria-label={`Max length of ${name}`}
          value={String(field.maxLength ?? "")}
          disabled={!text}
          placeholder={text ? (field.type === "PARAGRAPH" ? "∞" : "") : "—"}
          onCommit={(value) => set("maxLength", value === "" ? undefined : Number(value))}
          {...errorProps(id("maxLength"), at("maxLength"))}
        />
        <select
          id={id("references")}
          aria-label={`${name} references`}
          value={field.references ?? ""}
          onChange={(event) =>
            update((copy) => {
              const target = (event.target as HTMLSelectElement).value;
              if (target) {
                copy.references = target;
                copy.type = "NUMBER";
                delete copy.maxLength;
                delete copy.integer;
              } else {
                delete copy.references;
                delete copy.onDelete;
                delete copy.as;
                delete copy.reverse;
              }
            })
          }
          {...errorProps(id("references"), at("references"))}
        >
          <option value="">—</option>
          {Object.keys(manifest.tables).map((target) => (
            <option key={target} value={target}>
              {target}
            </option>
          ))}
        </select>
        <div class="row-actions">
          <button
            type="button"
            class="button small ghost"
            aria-expanded={more}
            aria-controls={id("more")}
            aria-label={`More options of ${name}`}
            onClick={() => setMore(!more)}
          >
            {more ? "Less" : "More"}
          </button>
          <button
            type="button"
            class="button small ghost danger"
            aria-label={`Remove field ${name}`}
            onClick={() =>
              edit((next) => {
                delete next.tables[table]!.fields[name];
              })
            }
          >
            ✕
          </button>
        </div>
      </div>
      {field.references && (
        <div class="field-extra">
          <label for={id("onDelete")}>When the referenced {field.references} record is deleted</label>
          <select
            id={id("onDelete")}
            value={field.onDelete ?? "restrict"}
            onChange={(event) => {
              const value = (event.target as HTMLSelectElement).value;
              set("onDelete", value === "restrict" ? undefined : value);
            }}
            {...errorProps(id("onDelete"), at("onDelete"))}
          >
            {ON_DELETE.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      )}
      {(field.references || field.as !== undefined || field.reverse !== undefined) && (
        <RelationNames
          table={table}
          name={name}
          field={field}
          manifest={manifest}
          relations={relations}
          id={id}
          at={at}
          set={set}
        />
      )}
      {field.renamedFrom && (
        <p class="hint field-extra">
          Renamed from <span class="mono">{field.renamedFrom}</span>: the migration renames the column and keeps its
          values.
        </p>
      )}
      {more && (
        <div class="field-more" id={id("more")}>
          {field.type === "NUMBER" && !field.references && (
            <label class="inline-check">
              <input
                type="checkbox"
                id={id("integer")}
                checked={field.integer === true}
                onChange={(event) => set("integer", (event.target as HTMLInputElement).checked)}
              />
              Whole numbers only (integer)
            </label>
          )}
          <div class="form-field grow">
            <label for={id("description")}>Description of {name}</label>
            <TypedInput
              id={id("description")}
              value={field.description ?? ""}
              placeholder="What the field holds"
              onCommit={(value) => set("description", value)}
            />
          </div>
          {versions.length > 1 && (
            <>
              <VersionChecks
                id={id("versions")}
                legend={`Versions that have ${name}`}
                versions={versions}
                chosen={field.versions}
                onChange={(chosen) => set("versions", chosen)}
              />
              <fieldset class="names">
                <legend>Name of {name} in each version's API (blank: its own)</legend>
                {versions.map((version) => (
                  <label key={version} class="inline-field">
                    {version}
                    <TypedInput
                      id={id(`names-${version}`)}
                      value={field.names?.[version] ?? ""}
                      placeholder={name}
                      onCommit={(typed) =>
                        update((copy) => {
                          const value = typed.trim();
                          const names = { ...(copy.names ?? {}) };
                          if (value) names[version] = value;
                          else delete names[version];
                          if (Object.keys(names).length > 0) copy.names = names;
                          else delete copy.names;
                        })
                      }
                    />
                  </label>
                ))}
              </fieldset>
            </>
          )}
        </div>
      )}
      {(
        [
          "type",
          "required",
          "unique",
          "index",
          "default",
          "maxLength",
          "references",
          "onDelete",
          "integer",
          "versions",
          "names",
          "renamedFrom",
          "description",
        ] as const
      )
        .map((option) => [option, at(option)] as const)
        .filter(([, message]) => message)
        .map(([option, message]) => (
          <FieldError key={option} id={id(option)} message={`${option}: ${message}`} />
        ))}
      <FieldError id={id("name")} message={rowError} />
    </div>
  );
}

/**
 * A reference's names in `expand` (`as:` and `reverse:`), each with what a blank one comes to (the
 * default, or why there is none) from the server's relations of the draft once checked, and the
 * validator's message under it when the name is refused.
 */
function RelationNames({
  table,
  name,
  field,
  manifest,
  relations,
  id,
  at,
  set,
}: {
  table: string;
  name: string;
  field: FieldData;
  manifest: ManifestData;
  relations: Relations | undefined;
  id: (option: string) => string;
  at: (option: string) => string | undefined;
  set: (option: keyof FieldData, value: unknown) => void;
}) {
  const hints = relationHints(manifest.tables, table, name, relations);
  const target = field.references;
  return (
    <div class="field-extra relation-names">
      <RelationName
        id={id("as")}
        label="Expand name"
        option="as"
        field={name}
        value={field.as}
        placeholder={hints.as.placeholder}
        hint={hints.as.hint}
        error={at("as")}
        onCommit={(value) => set("as", value)}
      />
      <RelationName
        id={id("reverse")}
        label={`Reverse name on ${target ?? "the referenced table"}`}
        option="reverse"
        field={name}
        value={field.reverse}
        placeholder={hints.reverse.placeholder}
        hint={hints.reverse.hint}
        error={at("reverse")}
        onCommit={(value) => set("reverse", value)}
      />
    </div>
  );
}

/**
 * One relation name: its label (the field's name for screen readers), its input, what it comes to,
 * and the validator's message; blank removes the option.
 */
function RelationName({
  id,
  label,
  option,
  field,
  value,
  placeholder,
  hint,
  error,
  onCommit,
}: {
  id: string;
  label: string;
  option: string;
  field: string;
  value: string | undefined;
  placeholder: string | undefined;
  hint: string;
  error: string | undefined;
  onCommit: (value: string) => void;
}) {
  return (
    <div class="form-field relation-name">
      <label for={id}>
        {label}
        <span class="visually-hidden"> of {field}</span> <span class="muted mono">{option}:</span>
      </label>
      <TypedInput
        id={id}
        class="name-input"
        value={value ?? ""}
        placeholder={placeholder ?? ""}
        spellcheck={false}
        autoComplete="off"
        onCommit={(typed) => onCommit(typed.trim())}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
      />
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <FieldError id={id} message={error} />
    </div>
  );
}

function QueryEditor({
  name,
  manifest,
  versions,
  problems,
  edit,
  schema,
  select,
}: {
  name: string;
  manifest: ManifestData;
  versions: string[];
  problems: ProblemAt[];
  edit: Edit;
  schema: Record<string, string[]>;
  select: (name: string | undefined) => void;
}) {
  const query = manifest.queries![name]!;
  const base = controlId("query", name);
  const path = ["queries", name];
  const params = Object.entries(query.params ?? {});
  const update = (change: (query: QueryData) => void) =>
    edit((next) => {
      const copy = { ...next.queries![name]! };
      change(copy);
      next.queries![name] = copy;
    });
  const sqlError = messageAt(problems, [...path, "sql"]);

  return (
    <section class="card editor" aria-labelledby={`${base}-title`}>
      <div class="editor-head">
        <h2 id={`${base}-title`}>
          Query <span class="mono">{name}</span>
        </h2>
        <button
          type="button"
          class="button danger small"
          onClick={() => {
            edit((next) => {
              delete next.queries![name];
              if (Object.keys(next.queries!).length === 0) delete next.queries;
            });
            select(undefined);
          }}
        >
          Remove query
        </button>
      </div>
      <FieldError id={base} message={messageAt(problems, path)} />
      <div class="form-row">
        <div class="form-field">
          <label for={`${base}-name`}>Name</label>
          <NameInput
            id={`${base}-name`}
            value={name}
            label="Query name"
            onRename={(to) => {
              edit((next, renames) => {
                next.queries = renamedKey(next.queries!, name, to);
                renames.push({ path: ["queries"], from: name, to });
              });
              select(to);
            }}
          />
        </div>
        <div class="form-field grow">
          <label for={`${base}-description`}>Description</label>
          <TypedInput
            id={`${base}-description`}
            value={query.description ?? ""}
            placeholder="What the query answers"
            onCommit={(value) =>
              update((copy) => {
                if (value) copy.description = value;
                else delete copy.description;
              })
            }
          />
        </div>
      </div>
      {versions.length > 1 && (
        <VersionChecks
          id={`${base}-versions`}
          legend="Served in versions"
          versions={versions}
          chosen={query.versions}
          onChange={(chosen) =>
            update((copy) => {
              if (chosen) copy.versions = chosen;
              else delete copy.versions;
            })
          }
        />
      )}
      <fieldset class="params">
        <legend>Parameters (from the query string, bound as :name)</legend>
        {params.length === 0 && <p class="muted small">None.</p>}
        {params.map(([param, type]) => {
          const pid = controlId("param", name, param);
          const message = messageAt(problems, [...path, "params", param], true);
          return (
            <div class="param-row" key={param}>
              <NameInput
                id={`${pid}-name`}
                value={param}
                label={`Name of parameter ${param}`}
                error={message}
                onRename={(to) =>
                  edit((next, renames) => {
                    next.queries![name]!.params = renamedKey(next.queries![name]!.params!, param, to);
                    renames.push({ path: ["queries", name, "params"], from: param, to });
                  })
                }
              />
              <select
                id={`${pid}-type`}
                aria-label={`Type of parameter ${param}`}
                value={type}
                onChange={(event) =>
                  update((copy) => {
                    copy.params = { ...copy.params, [param]: (event.target as HTMLSelectElement).value };
                  })
                }
              >
                {FIELD_TYPES.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
              <button
                type="button"
                class="button small ghost danger"
                aria-label={`Remove parameter ${param}`}
                onClick={() =>
                  update((copy) => {
                    const next = { ...copy.params };
                    delete next[param];
                    if (Object.keys(next).length > 0) copy.params = next;
                    else delete copy.params;
                  })
                }
              >
                ✕
              </button>
              <FieldError id={`${pid}-name`} message={message} />
            </div>
          );
        })}
        <button
          type="button"
          class="button small"
          onClick={() =>
            update((copy) => {
              copy.params = { ...copy.params, [unusedName("param", copy.params ?? {})]: "TEXT" };
            })
          }
        >
          + Add parameter
        </button>
        <FieldError id={`${base}-params`} message={messageAt(problems, [...path, "params"])} />
      </fieldset>
      <div class="form-field">
        <label for={`${base}-sql`} id={`${base}-sql-label`}>
          SQL: one read-only SELECT or WITH statement
        </label>
        <CodeEditor
          id={`${base}-sql`}
          value={query.sql ?? ""}
          language="sql"
          label={`SQL of ${name}`}
          schema={schema}
          database={manifest.database}
          error={sqlError}
          onChange={(sql) => update((copy) => void (copy.sql = sql))}
        />
        <FieldError id={`${base}-sql`} message={sqlError} />
      </div>
    </section>
  );
}
