import { createContext } from "preact";
import { useCallback, useContext, useEffect, useState } from "preact/hooks";
import type { ProjectDetail, Workspace } from "../src/studio/protocol.ts";
import { api, ApiError } from "./api.ts";
import { Notice } from "./components.tsx";
import { AiPage } from "./pages/ai.tsx";
import { ApiPage } from "./pages/api.tsx";
import { ChangesPage } from "./pages/changes.tsx";
import { DataPage } from "./pages/data.tsx";
import { ProjectsPage } from "./pages/projects.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import { TablesPage, type TablesDraft } from "./pages/tables.tsx";

export const PAGES = [
  ["tables", "Tables"],
  ["changes", "Changes"],
  ["ai", "AI"],
  ["data", "Data"],
  ["api", "API"],
  ["settings", "Settings"],
] as const;
export type PageName = (typeof PAGES)[number][0];

export interface Route {
  page: "projects" | PageName;
  id?: string;
  params: URLSearchParams;
}

/** `#/p/<id>/<page>?<params>`, or `#/` for the projects. */
export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts[0] === "p" && parts[1]) {
    const page = PAGES.some(([name]) => name === parts[2]) ? (parts[2] as PageName) : "tables";
    return { page, id: parts[1], params };
  }
  return { page: "projects", params };
}

export function href(id: string, page: PageName, params?: Record<string, string | undefined>): string {
  const query = new URLSearchParams(
    Object.entries(params ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  return `#/p/${encodeURIComponent(id)}/${page}${query ? `?${query}` : ""}`;
}

export interface Studio {
  workspace?: Workspace;
  reloadWorkspace: () => Promise<void>;
  project?: ProjectDetail;
  reloadProject: () => Promise<void>;
  route: Route;
  /** The Tables page's unsaved edits, kept while the user visits other pages. */
  drafts: Map<string, TablesDraft>;
}

export const StudioContext = createContext<Studio>(undefined as unknown as Studio);
export const useStudio = () => useContext(StudioContext);

export function App() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  const [workspace, setWorkspace] = useState<Workspace>();
  const [project, setProject] = useState<ProjectDetail>();
  const [error, setError] = useState<string>();
  const [drafts] = useState(() => new Map<string, TablesDraft>());

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  const reloadWorkspace = useCallback(async () => {
    try {
      setWorkspace(await api<Workspace>("GET", "/api/workspace"));
      setError(undefined);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, []);

  const reloadProject = useCallback(async () => {
    if (!route.id) return setProject(undefined);
    try {
      setProject(await api<ProjectDetail>("GET", `/api/projects/${encodeURIComponent(route.id)}`));
      setError(undefined);
    } catch (failure) {
      setProject(undefined);
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  }, [route.id]);

  useEffect(() => void reloadWorkspace(), []);
  useEffect(() => {
    if (project?.id !== route.id) setProject(undefined);
    void reloadProject();
  }, [route.id]);

  // A single project opens at once.
  useEffect(() => {
    if (
      route.page === "projects" &&
      workspace &&
      !workspace.canCreate &&
      workspace.projects.length === 1 &&
      !location.hash
    )
      location.hash = href(workspace.projects[0]!.id, "tables");
  }, [workspace]);

  const studio: Studio = { workspace, reloadWorkspace, project, reloadProject, route, drafts };
  const current = route.id;
  const title = route.page === "projects" ? "Projects" : (PAGES.find(([name]) => name === route.page)?.[1] ?? "");
  useEffect(() => {
    document.title = current ? `${title} · ${current} · tablegen studio` : "tablegen studio";
  }, [title, current]);

  return (
    <StudioContext.Provider value={studio}>
      <div class="shell">
        <nav class="sidebar" aria-label="Studio">
          <a class="brand" href="#/">
            <span class="brand-mark" aria-hidden="true">
              ▦
            </span>
            tablegen <span class="brand-studio">studio</span>
          </a>
          <a
            class={`nav-link${route.page === "projects" ? " active" : ""}`}
            href="#/"
            aria-current={route.page === "projects" ? "page" : undefined}
          >
            Projects
          </a>
          {workspace && workspace.projects.length > 0 && (
            <div class="project-picker">
              <label for="project-picker">Project</label>
              <select
                id="project-picker"
                value={current ?? ""}
                onChange={(event) => {
                  const id = (event.target as HTMLSelectElement).value;
                  location.hash = id ? href(id, route.page === "projects" ? "tables" : route.page) : "#/";
                }}
              >
                <option value="">Choose a project</option>
                {workspace.projects.map((item) => (
                  <option value={item.id} key={item.id}>
                    {item.id}
                  </option>
                ))}
              </select>
            </div>
          )}
          {current && (
            <ul class="nav-pages">
              {PAGES.map(([name, label]) => (
                <li key={name}>
                  <a
                    class={`nav-link${route.page === name ? " active" : ""}`}
                    href={href(current, name)}
                    aria-current={route.page === name ? "page" : undefined}
                  >
                    {label}
                    {name === "tables" && drafts.get(current)?.dirty && (
                      <span class="dot" title="Unsaved changes" aria-label="(unsaved changes)" />
                    )}
                  </a>
                </li>
              ))}
            </ul>
          )}
          <p class="sidebar-foot" title={workspace?.dir}>
            Local and offline · {workspace?.dir.split("/").filter(Boolean).at(-1) ?? ""}
          </p>
        </nav>
        <main class="main" id="main">
          {error && (
            <Notice kind="error" title="The studio could not load this">
              {error}
            </Notice>
          )}
          <Page route={route} />
        </main>
      </div>
    </StudioContext.Provider>
  );
}

function Page({ route }: { route: Route }) {
  const { project } = useStudio();
  if (route.page === "projects") return <ProjectsPage />;
  if (!project || project.id !== route.id) return <p class="loading">Loading {route.id}…</p>;
  switch (route.page) {
    case "tables":
      return <TablesPage key={project.id} />;
    case "changes":
      return <ChangesPage key={project.id} />;
    case "ai":
      return <AiPage key={project.id} />;
    case "data":
      return <DataPage key={project.id} />;
    case "api":
      return <ApiPage key={project.id} />;
    case "settings":
      return <SettingsPage key={project.id} />;
  }
}
