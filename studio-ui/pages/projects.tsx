import { useState } from "preact/hooks";
import type { ProjectSummary } from "../../src/studio/protocol.ts";
import { ApiError, stream } from "../api.ts";
import { href, useStudio } from "../app.tsx";
import { Badge, errorProps, FieldError, Notice, PageHeader, ProgressLog } from "../components.tsx";

/** The workspace's projects with their state, and a form creating one as `tablegen init` does. */
export function ProjectsPage() {
  const { workspace, reloadWorkspace } = useStudio();
  if (!workspace) return <p class="loading">Loading the workspace…</p>;
  return (
    <div class="page">
      <PageHeader title="Projects">
        <button type="button" class="button" onClick={() => void reloadWorkspace()}>
          Refresh
        </button>
      </PageHeader>
      <p class="lead">
        Projects in <code>{workspace.dir}</code>: each is a folder with a <code>tablegen.yaml</code>, the source of
        truth the studio reads and writes.
      </p>
      {workspace.projects.length === 0 ? (
        <Notice kind="info">No project here yet: create the first one below.</Notice>
      ) : (
        <div class="table-wrap">
          <table class="grid projects" aria-label="Projects">
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Database</th>
                <th scope="col">Tables</th>
                <th scope="col">Versions</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {workspace.projects.map((project) => (
                <ProjectRow project={project} key={project.id} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {workspace.canCreate ? (
        <CreateProject />
      ) : (
        <Notice kind="info">
          This folder is a project itself; start <code>tablegen studio</code> in a folder that holds projects to create
          more.
        </Notice>
      )}
    </div>
  );
}

function ProjectRow({ project }: { project: ProjectSummary }) {
  const states = [];
  if (project.invalid) states.push(<Badge kind="danger">manifest has problems</Badge>);
  else if (!project.generated) states.push(<Badge kind="warn">not generated</Badge>);
  else states.push(<Badge kind="ok">generated</Badge>);
  if (project.unmigrated > 0)
    states.push(
      <Badge kind="warn">
        {project.unmigrated} {project.unmigrated === 1 ? "change" : "changes"} to apply
      </Badge>,
    );
  if (project.pending !== undefined && project.pending > 0)
    states.push(
      <Badge kind="warn">
        {project.pending} pending {project.pending === 1 ? "migration" : "migrations"}
      </Badge>,
    );
  if (project.server.status === "running") states.push(<Badge kind="info">server running</Badge>);
  return (
    <tr>
      <th scope="row">
        <a href={href(project.id, "tables")}>{project.id}</a>
        {project.project && project.project !== project.id && <div class="muted small">serves /{project.project}</div>}
      </th>
      <td>{project.database ?? "—"}</td>
      <td>
        {project.tables ?? "—"}
        {project.queries ? <span class="muted"> + {project.queries} queries</span> : null}
      </td>
      <td>{project.versions?.join(", ") ?? "—"}</td>
      <td>
        <div class="badges">{states}</div>
      </td>
    </tr>
  );
}

function CreateProject() {
  const { workspace, reloadWorkspace } = useStudio();
  const [name, setName] = useState("");
  const [database, setDatabase] = useState("sqlite");
  const [start, setStart] = useState<"blank" | "example" | "ai">("example");
  const [prompt, setPrompt] = useState("");
  const [lines, setLines] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [errors, setErrors] = useState<{ name?: string; prompt?: string; form?: string }>({});

  const submit = async (event: Event) => {
    event.preventDefault();
    setErrors({});
    setLines([]);
    setRunning(true);
    try {
      const result = await stream<{ id: string }>(
        "/api/projects",
        { name, database, start, ...(start === "ai" && { prompt }) },
        (event) => {
          if (event.type === "progress") setLines((current) => [...current, event.text]);
          if (event.type === "problems")
            setLines((current) => [
              ...current,
              `The draft had problems, sent back for repair: ${event.problems.join("; ")}`,
            ]);
        },
      );
      await reloadWorkspace();
      if (result) location.hash = href(result.id, "tables");
    } catch (error) {
      const message = (error as Error).message;
      if (error instanceof ApiError && /project name|already exists/.test(message)) setErrors({ name: message });
      else if (start === "ai" && /description|OPENAI|model/.test(message)) setErrors({ prompt: message });
      else setErrors({ form: message });
    } finally {
      setRunning(false);
    }
  };

  return (
    <section class="card create" aria-labelledby="create-title">
      <h2 id="create-title">Create a project</h2>
      <p class="muted">
        Writes the files tablegen init writes: tablegen.yaml, a .env with a fresh API key, a .gitignore.
      </p>
      <form onSubmit={submit} class="form">
        <div class="form-row">
          <div class="form-field">
            <label for="new-name">Name</label>
            <input
              id="new-name"
              value={name}
              placeholder="my-app"
              autoComplete="off"
              spellcheck={false}
              onInput={(event) => setName((event.target as HTMLInputElement).value)}
              {...errorProps("new-name", errors.name)}
            />
            <p class="hint">The first segment of every URL: lowercase letters, digits and dashes.</p>
            <FieldError id="new-name" message={errors.name} />
          </div>
          <div class="form-field">
            <label for="new-database">Database</label>
            <select
              id="new-database"
              value={database}
              onChange={(event) => setDatabase((event.target as HTMLSelectElement).value)}
            >
              <option value="sqlite">SQLite (a file, nothing to install)</option>
              <option value="postgresql">PostgreSQL</option>
            </select>
          </div>
        </div>
        <fieldset class="form-field">
          <legend>Start from</legend>
          <div class="choices">
            {(
              [
                ["example", "The example", "authors, books and a query"],
                ["blank", "Blank", "one table to rename and build on"],
                [
                  "ai",
                  "An AI prompt",
                  workspace?.ai.configured ? `drafted by ${workspace.ai.model}` : "no model configured",
                ],
              ] as const
            ).map(([value, label, note]) => (
              <label class="choice" key={value}>
                <input
                  type="radio"
                  name="start"
                  value={value}
                  checked={start === value}
                  onChange={() => setStart(value)}
                  disabled={value === "ai" && !workspace?.ai.configured}
                />
                <span>
                  {label} <span class="muted small">({note})</span>
                </span>
              </label>
            ))}
          </div>
          {!workspace?.ai.configured && <p class="hint">{workspace?.ai.message}</p>}
        </fieldset>
        {start === "ai" && (
          <div class="form-field">
            <label for="new-prompt">What does the application do?</label>
            <textarea
              id="new-prompt"
              rows={3}
              value={prompt}
              placeholder="a lending library: members borrow books, with due dates and late fees"
              onInput={(event) => setPrompt((event.target as HTMLTextAreaElement).value)}
              {...errorProps("new-prompt", errors.prompt)}
            />
            <FieldError id="new-prompt" message={errors.prompt} />
          </div>
        )}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={running}>
            {running ? "Creating…" : "Create project"}
          </button>
        </div>
        <FieldError id="create-form" message={errors.form} />
        <ProgressLog lines={lines} running={running} label="Creating the project" />
      </form>
    </section>
  );
}
