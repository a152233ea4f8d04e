import { useEffect, useState } from "preact/hooks";
import type { FieldView, ServerState, TableView } from "../../src/studio/protocol.ts";
import { api, ApiError, serverApi, stream } from "../api.ts";
import { href, useStudio } from "../app.tsx";
import { Badge, controlId, errorProps, FieldError, Notice, PageHeader, ProgressLog } from "../components.tsx";

/**
 * The data browser: the project's generated server started and stopped from here, and each table
 * per version read and written through the server's own API (so its hooks and validation apply):
 * pages, sorting, filters and counts; records created, edited and deleted with the server's 4xx
 * messages at their fields; references as links, and the records that refer to one.
 */

type Row = Record<string, unknown> & { id: string | number };

const OPERATORS = [
  ["eq", "="],
  ["ne", "≠"],
  ["gt", ">"],
  ["gte", "≥"],
  ["lt", "<"],
  ["lte", "≤"],
  ["contains", "contains"],
  ["in", "in"],
  ["null", "is null"],
] as const;

interface Filter {
  field: string;
  op: string;
  value: string;
}

const parseFilter = (text: string): Filter => {
  const [field = "", op = "eq", ...value] = text.split(":");
  return { field, op, value: value.join(":") };
};
const filterText = ({ field, op, value }: Filter) => `${field}:${op}:${value}`;

export function DataPage() {
  const { project, route, reloadProject } = useStudio();
  const detail = project!;
  const model = detail.model;
  const [server, setServer] = useState<ServerState>(detail.server);
  const [lines, setLines] = useState<string[]>([]);
  const [starting, setStarting] = useState(false);
  const [serverError, setServerError] = useState<string>();

  const start = async () => {
    setStarting(true);
    setLines([]);
    setServerError(undefined);
    try {
      const state = await stream<ServerState>(
        `/api/projects/${encodeURIComponent(detail.id)}/server/start`,
        {},
        (event) => {
          if (event.type === "progress") setLines((current) => [...current, event.text]);
        },
      );
      if (state) setServer(state);
    } catch (error) {
      setServerError((error as Error).message);
      setServer(await api<ServerState>("GET", `/api/projects/${encodeURIComponent(detail.id)}/server`));
    } finally {
      setStarting(false);
      await reloadProject();
    }
  };
  const stop = async () => {
    setServer(await api<ServerState>("POST", `/api/projects/${encodeURIComponent(detail.id)}/server/stop`));
    setLines([]);
    await reloadProject();
  };

  if (!model) {
    return (
      <div class="page">
        <PageHeader title="Data" />
        <Notice kind="error" title={`${detail.file} has problems`}>
          <pre class="message">{detail.invalid}</pre>
        </Notice>
      </div>
    );
  }

  const params = route.params;
  const table = model.tables.find((candidate) => candidate.name === params.get("table")) ?? model.tables[0];
  const version =
    table && table.versions.includes(params.get("version") ?? "") ? params.get("version")! : table?.versions.at(-1);
  const running = server.status === "running";

  return (
    <div class="page data-page">
      <PageHeader title="Data">
        <span class="server-state" role="status" aria-live="polite">
          {running ? (
            <>
              <Badge kind="ok">running</Badge> <span class="mono small">{server.url}</span>
            </>
          ) : (
            <Badge kind={server.status === "failed" ? "danger" : "muted"}>
              {starting ? "starting" : server.status}
            </Badge>
          )}
        </span>
        {running ? (
          <button type="button" class="button" onClick={() => void stop()}>
            Stop server
          </button>
        ) : (
          <button type="button" class="button primary" disabled={starting} onClick={() => void start()}>
            {starting ? "Starting…" : "Start server"}
          </button>
        )}
      </PageHeader>
      <ProgressLog lines={starting ? lines : []} running={starting} label="Starting the server" />
      {serverError && <FieldError id="server" message={serverError} />}
      {!running && !starting && !serverError && (
        <Notice kind="info">
          The data is read and written through the generated server's API, so its validation and hooks apply: start the
          server to browse it. {server.message && <span class="muted">Last stop: {server.message}</span>}
        </Notice>
      )}
      {model.tables.length > 0 && table && version && (
        <>
          <nav class="tabs" aria-label="Tables">
            {model.tables.map((candidate) => (
              <a
                key={candidate.name}
                class={`tab${candidate.name === table.name ? " active" : ""}`}
                aria-current={candidate.name === table.name ? "page" : undefined}
                href={href(detail.id, "data", {
                  table: candidate.name,
                  version: candidate.versions.includes(version) ? version : undefined,
                })}
              >
                {candidate.name}
              </a>
            ))}
          </nav>
          {running && (
            <Browser
              key={`${table.name}/${version}`}
              id={detail.id}
              tables={model.tables}
              table={table}
              version={version}
              params={params}
            />
          )}
        </>
      )}
    </div>
  );
}

function Browser({
  id,
  tables,
  table,
  version,
  params,
}: {
  id: string;
  tables: TableView[];
  table: TableView;
  version: string;
  params: URLSearchParams;
}) {
  const fields = table.fields[version] ?? [];
  const limit = Number(params.get("limit") ?? 20);
  const offset = Number(params.get("offset") ?? 0);
  const sort = params.get("sort") ?? "";
  const filters = params.getAll("filter").map(parseFilter);
  const record = params.get("record") ?? undefined;
  const [rows, setRows] = useState<Row[]>([]);
  const [count, setCount] = useState<number>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [reloads, setReloads] = useState(0);
  /** What the last save said, for the record it saved (shown when its panel opens). */
  const [flash, setFlash] = useState<{ record: string; message: string }>();
  const [newFilter, setNewFilter] = useState<Filter>({ field: fields[0]?.name ?? "id", op: "eq", value: "" });

  const go = (changes: Record<string, string | string[] | undefined>) => {
    const next = new URLSearchParams(params);
    next.set("table", table.name);
    next.set("version", version);
    for (const [key, value] of Object.entries(changes)) {
      next.delete(key);
      if (Array.isArray(value)) value.forEach((item) => next.append(key, item));
      else if (value !== undefined) next.set(key, value);
    }
    location.hash = `${href(id, "data")}?${next.toString()}`;
  };

  const base = `/api/projects/${encodeURIComponent(id)}/data/${table.name}/${version}`;
  const query = [
    `limit=${limit}`,
    `offset=${offset}`,
    "count=true",
    ...(sort ? [`sort=${encodeURIComponent(sort)}`] : []),
    ...filters.map(({ field, op, value }) =>
      op === "eq" ? `${field}=${encodeURIComponent(value)}` : `${field}[${op}]=${encodeURIComponent(value)}`,
    ),
  ].join("&");

  useEffect(() => {
    let current = true;
    setLoading(true);
    serverApi("GET", `${base}/list?${query}`)
      .then((answer) => {
        if (!current) return;
        if (answer.status !== 200) {
          setError(answer.body.message);
          setRows([]);
          setCount(undefined);
          return;
        }
        setError(undefined);
        setRows(answer.body.data as Row[]);
        const total = answer.headers.get("x-total-count");
        setCount(total === null ? undefined : Number(total));
      })
      .catch((failure: Error) => current && setError(failure.message))
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [query, reloads]);

  const sortOf = (field: string): "ascending" | "descending" | undefined =>
    sort === field ? "ascending" : sort === `-${field}` ? "descending" : undefined;
  const nextSort = (field: string) => (sort === field ? `-${field}` : sort === `-${field}` ? undefined : field);
  const columns = ["id", ...fields.map((field) => field.name)];
  const fieldOf = (name: string) => fields.find((field) => field.name === name);

  return (
    <div class={`browser${record ? " with-panel" : ""}`}>
      <div class="browser-main">
        <div class="toolbar-top">
          <label class="inline-field">
            Version
            <select
              value={version}
              aria-label="API version"
              onChange={(event) => go({ version: (event.target as HTMLSelectElement).value, offset: undefined })}
            >
              {table.versions.map((label) => (
                <option key={label} value={label}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="button primary small" onClick={() => go({ record: "new" })}>
            + New record
          </button>
        </div>
        <div class="toolbar">
          <form
            class="filter-form"
            aria-label="Add a filter"
            onSubmit={(event) => {
              event.preventDefault();
              go({ filter: [...filters.map(filterText), filterText(newFilter)], offset: undefined });
              setNewFilter({ ...newFilter, value: "" });
            }}
          >
            <select
              aria-label="Filter field"
              value={newFilter.field}
              onChange={(event) => setNewFilter({ ...newFilter, field: (event.target as HTMLSelectElement).value })}
            >
              {columns.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
            <select
              aria-label="Filter operator"
              value={newFilter.op}
              onChange={(event) => setNewFilter({ ...newFilter, op: (event.target as HTMLSelectElement).value })}
            >
              {OPERATORS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            <input
              aria-label="Filter value"
              value={newFilter.value}
              placeholder={newFilter.op === "in" ? "a,b,c" : newFilter.op === "null" ? "true or false" : "value"}
              onInput={(event) => setNewFilter({ ...newFilter, value: (event.target as HTMLInputElement).value })}
            />
            <button type="submit" class="button small">
              Filter
            </button>
          </form>
        </div>
        {filters.length > 0 && (
          <ul class="chips" aria-label="Filters">
            {filters.map((filter, index) => (
              <li key={index} class="chip">
                <span class="mono">
                  {filter.field} {OPERATORS.find(([value]) => value === filter.op)?.[1] ?? filter.op} {filter.value}
                </span>
                <button
                  type="button"
                  aria-label={`Remove filter ${filter.field} ${filter.op} ${filter.value}`}
                  onClick={() =>
                    go({ filter: filters.filter((_, i) => i !== index).map(filterText), offset: undefined })
                  }
                >
                  ✕
                </button>
              </li>
            ))}
          </ul>
        )}
        {error && <FieldError id="list" message={error} />}
        <div class="table-wrap">
          <table class="grid records" aria-label={`${table.name} records (${version})`} aria-busy={loading}>
            <thead>
              <tr>
                {columns.map((name) => (
                  <th key={name} scope="col" aria-sort={sortOf(name) ?? "none"}>
                    <button type="button" class="sort" onClick={() => go({ sort: nextSort(name), offset: undefined })}>
                      {name}
                      <span aria-hidden="true" class="sort-mark">
                        {sortOf(name) === "ascending" ? "▲" : sortOf(name) === "descending" ? "▼" : ""}
                      </span>
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={String(row.id)} class={String(row.id) === record ? "selected" : ""}>
                  {columns.map((name) => (
                    <td key={name}>
                      {name === "id" ? (
                        <a href="#" onClick={(event) => (event.preventDefault(), go({ record: String(row.id) }))}>
                          {String(row.id)}
                        </a>
                      ) : (
                        <Value id={id} value={row[name]} field={fieldOf(name)} version={version} tables={tables} />
                      )}
                    </td>
                  ))}
                </tr>
              ))}
              {rows.length === 0 && !loading && (
                <tr>
                  <td colSpan={columns.length} class="muted empty">
                    No records{filters.length > 0 ? " match the filters" : " yet"}.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <div class="pager">
          <span role="status" aria-live="polite">
            {count === undefined
              ? ""
              : count === 0
                ? "0 records"
                : `${offset + 1}–${Math.min(offset + rows.length, count)} of ${count} ${count === 1 ? "record" : "records"}`}
          </span>
          <label class="inline-field">
            Per page
            <select
              value={String(limit)}
              onChange={(event) => go({ limit: (event.target as HTMLSelectElement).value, offset: undefined })}
            >
              {[10, 20, 50, 100].map((size) => (
                <option key={size} value={String(size)}>
                  {size}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            class="button small"
            disabled={offset === 0}
            onClick={() => go({ offset: String(Math.max(0, offset - limit)) })}
          >
            Previous
          </button>
          <button
            type="button"
            class="button small"
            disabled={count === undefined || offset + limit >= count}
            onClick={() => go({ offset: String(offset + limit) })}
          >
            Next
          </button>
        </div>
      </div>
      {record && (
        <RecordPanel
          key={record}
          flash={flash?.record === record ? flash.message : undefined}
          id={id}
          base={base}
          table={table}
          tables={tables}
          version={version}
          record={record}
          close={() => go({ record: undefined })}
          saved={(recordId, message) => {
            setReloads(reloads + 1);
            setFlash(message ? { record: recordId, message } : undefined);
            if (recordId !== record) go({ record: recordId || undefined });
          }}
        />
      )}
    </div>
  );
}

function Value({
  id,
  value,
  field,
  version,
  tables,
}: {
  id: string;
  value: unknown;
  field: FieldView | undefined;
  version: string;
  tables: TableView[];
}) {
  if (value === null || value === undefined) return <span class="null">null</span>;
  if (
    field?.references &&
    tables.some((table) => table.name === field.references && table.versions.includes(version))
  ) {
    return (
      <a
        href={href(id, "data", { table: field.references, version, record: String(value) })}
        title={`${field.references} ${value}`}
      >
        {field.references} {String(value)}
      </a>
    );
  }
  if (typeof value === "boolean") return <span class={value ? "true" : "false"}>{String(value)}</span>;
  return <span class="cell-text">{String(value)}</span>;
}

/** A field's input text → the JSON value sent: numbers and booleans by the field's kind; the server judges the rest. */
function toJson(field: FieldView, text: string): unknown {
  if (text === "") return null;
  if (["float", "integer"].includes(field.kind) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text.trim()))
    return Number(text);
  if (field.kind === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

const asText = (value: unknown) => (value === null || value === undefined ? "" : String(value));

function RecordPanel({
  id,
  base,
  table,
  tables,
  version,
  record,
  close,
  saved,
  flash,
}: {
  flash?: string | undefined;
  id: string;
  base: string;
  table: TableView;
  tables: TableView[];
  version: string;
  record: string;
  close: () => void;
  saved: (id: string, message?: string) => void;
}) {
  const fields = table.fields[version] ?? [];
  const creating = record === "new";
  const [loaded, setLoaded] = useState<Row>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const [notice, setNotice] = useState<string | undefined>(flash);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [referrers, setReferrers] = useState<{ table: string; field: string; count?: number }[]>([]);

  useEffect(() => {
    if (creating) return;
    void serverApi("GET", `${base}/show/${encodeURIComponent(record)}`).then((answer) => {
      if (answer.status !== 200) return setFormError(`${answer.status}: ${answer.body.message}`);
      const row = answer.body.data as Row;
      setLoaded(row);
      setValues(Object.fromEntries(fields.map((field) => [field.name, asText(row[field.name])])));
    });
    // The records of other tables that refer to this one, in this version.
    const found = tables.flatMap((other) =>
      other.versions.includes(version)
        ? (other.fields[version] ?? [])
            .filter((field) => field.references === table.name)
            .map((field) => ({ table: other.name, field: field.name }))
        : [],
    );
    setReferrers(found);
    void Promise.all(
      found.map(async (referrer) => {
        const answer = await serverApi(
          "GET",
          `/api/projects/${encodeURIComponent(id)}/data/${referrer.table}/${version}/list?${referrer.field}=${encodeURIComponent(record)}&limit=1&count=true`,
        ).catch(() => undefined);
        const total = answer?.headers.get("x-total-count");
        return { ...referrer, ...(total != null && { count: Number(total) }) };
      }),
    ).then(setReferrers);
  }, [record]);

  /** The server's 400/409 message, each problem at its field: `Invalid request: email already exists; …`. */
  const showFailure = (status: number, message: string) => {
    const problems = message.replace(/^Invalid request: /, "").split("; ");
    const atFields: Record<string, string> = {};
    const rest: string[] = [];
    for (const problem of problems) {
      const field = fields.find((candidate) => problem === candidate.name || problem.startsWith(`${candidate.name} `));
      if (field && status < 500)
        atFields[field.name] = atFields[field.name] ? `${atFields[field.name]}; ${problem}` : problem;
      else rest.push(problem);
    }
    setErrors(atFields);
    setFormError(
      rest.length > 0 ? `${status}: ${rest.length === problems.length ? message : rest.join("; ")}` : undefined,
    );
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setFormError(undefined);
    setNotice(undefined);
    const body: Record<string, unknown> = {};
    for (const field of fields) {
      const text = values[field.name] ?? "";
      if (creating) {
        if (text !== "") body[field.name] = toJson(field, text);
      } else if (text !== asText(loaded?.[field.name])) body[field.name] = toJson(field, text);
    }
    try {
      const answer = creating
        ? await serverApi("POST", `${base}/create`, body)
        : await serverApi("POST", `${base}/update/${encodeURIComponent(record)}`, body);
      if (answer.status >= 400) return showFailure(answer.status, answer.body.message);
      const row = answer.body.data as Row;
      setNotice(answer.body.message);
      setLoaded(row);
      setValues(Object.fromEntries(fields.map((field) => [field.name, asText(row[field.name])])));
      saved(String(row.id), answer.body.message);
    } catch (error) {
      setFormError((error as ApiError).message);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    try {
      const answer = await serverApi("DELETE", `${base}/delete/${encodeURIComponent(record)}`);
      if (answer.status >= 400) {
        setFormError(`${answer.status}: ${answer.body.message}`);
        setConfirming(false);
        return;
      }
      saved("", "Record deleted successfully.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside
      class="card record-panel"
      aria-label={creating ? `New ${table.name} record` : `${table.name} record ${record}`}
    >
      <div class="editor-head">
        <h2>{creating ? `New ${table.name} record` : `${table.name} ${record}`}</h2>
        <button type="button" class="button small ghost" aria-label="Close the record" onClick={close}>
          ✕
        </button>
      </div>
      {notice && <Notice kind="success">{notice}</Notice>}
      <form class="form" onSubmit={submit}>
        {fields.map((field) => {
          const fid = controlId("record", table.name, field.name);
          const value = values[field.name] ?? "";
          const set = (text: string) => setValues({ ...values, [field.name]: text });
          const label = (
            <label for={fid}>
              {field.name}
              <span class="muted small">
                {" "}
                {field.type}
                {field.references ? ` → ${field.references}` : ""}
                {field.required ? ", required" : ""}
                {field.unique ? ", unique" : ""}
              </span>
            </label>
          );
          return (
            <div class="form-field" key={field.name}>
              {label}
              {field.kind === "boolean" ? (
                <select
                  id={fid}
                  value={value}
                  onChange={(event) => set((event.target as HTMLSelectElement).value)}
                  {...errorProps(fid, errors[field.name])}
                >
                  <option value="">
                    {creating && field.default !== undefined ? `default (${field.default})` : "null"}
                  </option>
                  <option value="true">true</option>
                  <option value="false">false</option>
                </select>
              ) : field.type === "PARAGRAPH" ? (
                <textarea
                  id={fid}
                  rows={3}
                  value={value}
                  onInput={(event) => set((event.target as HTMLTextAreaElement).value)}
                  {...errorProps(fid, errors[field.name])}
                />
              ) : (
                <input
                  id={fid}
                  value={value}
                  inputMode={["float", "integer"].includes(field.kind) ? "decimal" : undefined}
                  placeholder={
                    creating && field.default !== undefined
                      ? `default: ${field.default}`
                      : field.kind === "datetime"
                        ? "2025-01-31T12:00:00Z"
                        : ""
                  }
                  onInput={(event) => set((event.target as HTMLInputElement).value)}
                  {...errorProps(fid, errors[field.name])}
                />
              )}
              {field.references && value && (
                <a class="small" href={href(id, "data", { table: field.references, version, record: value })}>
                  Open {field.references} {value}
                </a>
              )}
              <FieldError id={fid} message={errors[field.name]} />
            </div>
          );
        })}
        <FieldError id="record-form" message={formError} />
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={busy}>
            {creating ? "Create" : "Save"}
          </button>
          {!creating &&
            (confirming ? (
              <>
                <span>
                  Delete {table.name} {record}?
                </span>
                <button type="button" class="button danger" disabled={busy} onClick={() => void remove()}>
                  Yes, delete
                </button>
                <button type="button" class="button" onClick={() => setConfirming(false)}>
                  Keep it
                </button>
              </>
            ) : (
              <button type="button" class="button danger ghost" onClick={() => setConfirming(true)}>
                Delete
              </button>
            ))}
        </div>
      </form>
      {!creating && referrers.length > 0 && (
        <section class="referrers" aria-label="Records that refer to this one">
          <h3>Referenced by</h3>
          <ul>
            {referrers.map((referrer) => (
              <li key={`${referrer.table}.${referrer.field}`}>
                <a
                  href={href(id, "data", {
                    table: referrer.table,
                    version,
                    filter: `${referrer.field}:eq:${record}`,
                  })}
                >
                  {referrer.table} where {referrer.field} = {record}
                </a>{" "}
                {referrer.count !== undefined && <Badge kind="muted">{referrer.count}</Badge>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </aside>
  );
}
