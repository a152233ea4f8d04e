import { useState } from "preact/hooks";
import type { ModelView, QueryView, RelationView, RouteView } from "../../src/studio/protocol.ts";
import { serverApi } from "../api.ts";
import { href, useStudio } from "../app.tsx";
import { Badge, controlId, CopyBlock, errorProps, FieldError, Notice, PageHeader } from "../components.tsx";

/**
 * The API as each version serves it (from its OpenAPI document): the routes of each table and
 * query, a curl example and a typed-client snippet for each, the version's deprecation, a link to
 * the server's reference page, and a form running a custom query with its parameters.
 */
export function ApiPage() {
  const { project, route } = useStudio();
  const detail = project!;
  const model = detail.model;
  if (!model) {
    return (
      <div class="page">
        <PageHeader title="API" />
        <Notice kind="error" title={`${detail.file} has problems`}>
          <pre class="message">{detail.invalid}</pre>
        </Notice>
      </div>
    );
  }
  const labels = model.versions.map((version) => version.label);
  const version = labels.includes(route.params.get("version") ?? "") ? route.params.get("version")! : labels.at(-1)!;
  const policy = model.versions.find((candidate) => candidate.label === version)?.deprecated;
  const routes = model.routes[version] ?? [];
  const running = detail.server.status === "running" ? detail.server.url : undefined;
  const base = running ?? "http://127.0.0.1:3000";
  const groups = [...new Set(routes.map((item) => item.tag))];

  return (
    <div class="page api-page">
      <PageHeader title="API">
        <label class="inline-field">
          Version
          <select
            value={version}
            onChange={(event) =>
              (location.hash = href(detail.id, "api", { version: (event.target as HTMLSelectElement).value }))
            }
          >
            {labels.map((label) => (
              <option key={label} value={label}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {running ? (
          <a class="button" href={`${running}/${model.project}/docs`} target="_blank" rel="noreferrer noopener">
            Open the API reference page
          </a>
        ) : (
          <a class="button" href={href(detail.id, "data")}>
            Start the server for the reference page
          </a>
        )}
      </PageHeader>
      <p class="lead">
        {policy ? (
          <>
            <Badge kind="warn">deprecated</Badge> {version} is deprecated
            {policy.since ? ` since ${policy.since}` : ""}
            {policy.sunset ? `, and stops answering on ${policy.sunset}` : ""}: its answers carry the Deprecation
            {policy.sunset ? " and Sunset headers" : " header"}.
          </>
        ) : (
          <>
            <Badge kind="ok">current</Badge> {version} is served at{" "}
            <span class="mono">
              {base}/{model.project}/…
            </span>
            , every request with the <span class="mono">X-API-SIGNATURE</span> header (the key on the Settings page).
          </>
        )}
      </p>
      <ClientRecipe model={model} version={version} base={base} />
      {groups.map((group) => (
        <section class="card" key={group} aria-labelledby={controlId("api", group)}>
          <h2 id={controlId("api", group)}>
            {group === "custom queries" ? "Custom queries" : group === "OpenAPI" ? "OpenAPI document" : group}
          </h2>
          <ExpandNames relations={model.tables.find((table) => table.name === group)?.relations[version]} />
          <ul class="routes">
            {routes
              .filter((item) => item.tag === group)
              .map((item) => (
                <RouteItem
                  key={`${item.method} ${item.path}`}
                  item={item}
                  base={base}
                  version={version}
                  model={model}
                />
              ))}
          </ul>
          {group === "custom queries" &&
            model.queries
              .filter((query) => query.versions.includes(version))
              .map((query) => (
                <QueryRunner
                  key={query.name}
                  id={detail.id}
                  query={query}
                  version={version}
                  running={running !== undefined}
                />
              ))}
        </section>
      ))}
    </div>
  );
}

/** What `expand` names on a table's list and show in the version: its relations, each with what it embeds. */
function ExpandNames({ relations }: { relations: RelationView[] | undefined }) {
  if (!relations || relations.length === 0) return null;
  return (
    <p class="muted small expand-names">
      <span class="mono">expand</span> on list and show:{" "}
      {relations.map((relation, index) => (
        <span key={relation.name}>
          {index > 0 && ", "}
          <span class="mono">{relation.name}</span> (
          {relation.kind === "one"
            ? `the ${relation.table} record ${relation.field} refers to`
            : `the ${relation.table} records referring to it by ${relation.field}`}
          )
        </span>
      ))}
    </p>
  );
}

function ClientRecipe({ model, version, base }: { model: ModelView; version: string; base: string }) {
  const table = model.tables.find((candidate) => candidate.versions.includes(version));
  const fields = table?.fields[version] ?? [];
  const required = fields.filter((field) => field.required && field.default === undefined);
  const sample = Object.fromEntries(required.map((field) => [field.name, sampleValue(field.kind, field.type)]));
  const recipe = [
    `// npx openapi-typescript server/openapi/${version}.json -o src/${model.project}-${version}.d.ts`,
    `import createClient from "openapi-fetch";`,
    `import type { paths } from "./${model.project}-${version}.js";`,
    ``,
    `const api = createClient<paths>({`,
    `  baseUrl: "${base}",`,
    `  headers: { "X-API-SIGNATURE": process.env.API_SIGNATURE_KEY! },`,
    `  querySerializer: { array: { style: "form", explode: false } },`,
    `});`,
    ...(table
      ? [
          `const { data, error } = await api.GET("/${model.project}/${table.name}/${version}/list", { params: { query: { limit: 20 } } });`,
          `await api.POST("/${model.project}/${table.name}/${version}/create", { body: ${literal(sample)} });`,
        ]
      : []),
  ].join("\n");
  return (
    <section class="card" aria-labelledby="client-title">
      <h2 id="client-title">Typed client</h2>
      <p class="muted small">
        A client typed by the version's OpenAPI document, with openapi-typescript and openapi-fetch: a wrong body is a
        compile error.
      </p>
      <CopyBlock text={recipe} label={`typed client of ${version}`} />
    </section>
  );
}

/** An object as TypeScript source: `{ title: "text", done: true }`. */
function literal(value: Record<string, unknown>): string {
  const entries = Object.entries(value).map(([key, item]) => `${key}: ${JSON.stringify(item)}`);
  return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
}

function sampleValue(kind: string, type: string): unknown {
  if (kind === "boolean") return true;
  if (kind === "integer" || kind === "float") return 1;
  if (type === "EMAIL") return "ada@example.com";
  if (type === "PHONE") return "+44 20 7946 0000";
  if (kind === "datetime") return "2025-01-31T12:00:00Z";
  return "text";
}

function RouteItem({
  item,
  base,
  version,
  model,
}: {
  item: RouteView;
  base: string;
  version: string;
  model: ModelView;
}) {
  const [open, setOpen] = useState(false);
  const path = item.path.replace(/\{(\w+)\}/g, "1");
  const table = model.tables.find((candidate) => candidate.name === item.tag);
  const fields = table?.fields[version] ?? [];
  const sample =
    item.method === "POST"
      ? Object.fromEntries(
          fields
            .filter((field) =>
              path.includes("/update/") ? field === fields[0] : field.required && field.default === undefined,
            )
            .map((field) => [field.name, sampleValue(field.kind, field.type)]),
        )
      : undefined;
  const body = sample && JSON.stringify(sample);
  const curl = [
    `curl${item.method === "GET" ? "" : ` -X ${item.method}`} -H "X-API-SIGNATURE: $API_SIGNATURE_KEY"`,
    ...(body ? [`  -H "Content-Type: application/json" -d '${body}'`] : []),
    `  '${base}${path}'`,
  ].join(" \\\n");
  const parameter = /\{(\w+)\}/.exec(item.path)?.[1];
  const options = [
    ...(parameter ? [`params: { path: { ${parameter}: 1 } }`] : []),
    ...(sample ? [`body: ${literal(sample)}`] : []),
  ];
  const client = `await api.${item.method}("${item.path}"${options.length > 0 ? `, { ${options.join(", ")} }` : ""});`;
  return (
    <li class="route">
      <button type="button" class="route-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span class={`method method-${item.method.toLowerCase()}`}>{item.method}</span>
        <span class="mono path">{item.path}</span>
        <span class="muted small">{item.summary}</span>
        {item.deprecated && <Badge kind="warn">deprecated</Badge>}
      </button>
      {open && (
        <div class="route-body">
          <CopyBlock text={curl} label={`curl example of ${item.operationId}`} />
          <CopyBlock text={client} label={`typed-client call of ${item.operationId}`} />
        </div>
      )}
    </li>
  );
}

function QueryRunner({
  id,
  query,
  version,
  running,
}: {
  id: string;
  query: QueryView;
  version: string;
  running: boolean;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [rows, setRows] = useState<Record<string, unknown>[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const form = controlId("run", query.name);

  const run = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const search = query.params
        .map((param) => `${param.name}=${encodeURIComponent(values[param.name] ?? "")}`)
        .join("&");
      const answer = await serverApi(
        "GET",
        `/api/projects/${encodeURIComponent(id)}/data/${version}/${query.name}${search ? `?${search}` : ""}`,
      );
      if (answer.status !== 200) {
        setRows(undefined);
        setError(`${answer.status}: ${answer.body.message}`);
      } else setRows(answer.body.data as Record<string, unknown>[]);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const columns = rows && rows.length > 0 ? Object.keys(rows[0]!) : (query.columns ?? []);
  return (
    <form class="query-runner" onSubmit={run} aria-label={`Run ${query.name}`}>
      <h3>
        Run <span class="mono">{query.name}</span>
      </h3>
      {query.description && <p class="muted small">{query.description}</p>}
      <div class="form-row">
        {query.params.map((param) => {
          const fid = controlId(form, param.name);
          return (
            <div class="form-field" key={param.name}>
              <label for={fid}>
                {param.name} <span class="muted small">{param.type}</span>
              </label>
              <input
                id={fid}
                value={values[param.name] ?? ""}
                onInput={(event) => setValues({ ...values, [param.name]: (event.target as HTMLInputElement).value })}
                {...errorProps(`${form}-result`, error)}
              />
            </div>
          );
        })}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={!running || busy}>
            Run query
          </button>
          {!running && <span class="hint">Start the server on the Data page to run it.</span>}
        </div>
      </div>
      <FieldError id={`${form}-result`} message={error} />
      {rows && (
        <div class="table-wrap">
          <table class="grid" aria-label={`Rows of ${query.name}`}>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={index}>
                  {columns.map((column) => (
                    <td key={column}>{row[column] === null ? <span class="null">null</span> : String(row[column])}</td>
                  ))}
                </tr>
              ))}
              {rows.length === 0 && (
                <tr>
                  <td colSpan={Math.max(columns.length, 1)} class="muted empty">
                    No rows.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
    </form>
  );
}
