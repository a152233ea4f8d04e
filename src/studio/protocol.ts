/**
 * What the studio's server and its browser app say to each other: the JSON of `/api/…`. Types
 * only; the browser app (studio-ui/) imports them too.
 */

/** A problem of the manifest, at its path (`["tables", "posts", "fields", "title", "maxLength"]`). */
export interface ProblemAt {
  path: (string | number)[];
  message: string;
  line?: number;
  column?: number;
}

/** An error answer: the message, and the manifest's problems when they are the reason. */
export interface ErrorBody {
  message: string;
  problems?: ProblemAt[];
}

export interface ServerState {
  status: "stopped" | "starting" | "running" | "stopping" | "failed";
  /** The generated server's address while it runs: http://127.0.0.1:<port> */
  url?: string;
  /** Why it stopped or could not start. */
  message?: string;
  /** The last lines it wrote. */
  output?: string[];
}

export interface ProjectSummary {
  id: string;
  /** The project folder, as the studio's working directory shows it. */
  dir: string;
  file: string;
  /** From the manifest, when it can be read. */
  project?: string;
  database?: string;
  tables?: number;
  queries?: number;
  versions?: string[];
  /** The manifest's problems (one message: the CLI's). */
  invalid?: string;
  generated: boolean;
  /** Changes of the manifest no migration holds yet. */
  unmigrated: number;
  /** Migrations written and not applied to the database; undefined when the database cannot be read. */
  pending?: number;
  server: ServerState;
}

export interface Workspace {
  dir: string;
  /** Whether projects can be created here: a workspace that is itself a project holds no others. */
  canCreate: boolean;
  projects: ProjectSummary[];
  /** Whether an AI model is configured (OPENAI_API_KEY), and if not, how to configure one. */
  ai: AiStatus;
}

export interface AiStatus {
  configured: boolean;
  model?: string;
  message?: string;
}

/** A field as one API version has it. */
export interface FieldView {
  /** Its name in the version's API. */
  name: string;
  /** The column it is stored under. */
  column: string;
  type: string;
  kind: string;
  required: boolean;
  unique: boolean;
  maxLength?: number;
  default?: string | number | boolean;
  /** The table it refers to. */
  references?: string;
}

/**
 * A relation a table's records can embed with `expand` (src/model/expansions.ts): the record a
 * reference names ("one"), or the records of `table` that refer to one through `field` ("many").
 */
export interface RelationView {
  /** The name `expand` takes: `as:`, `reverse:`, or the default. */
  name: string;
  kind: "one" | "many";
  /** The table whose records are embedded. */
  table: string;
  /**
   * The reference field, of the expanding table for "one", of `table` for "many": as stored, or
   * (in a TableView) under its name in the version's API.
   */
  field: string;
}

export interface TableView {
  name: string;
  id: "number" | "uuid" | "bigint";
  description?: string;
  versions: string[];
  /** Its fields in each version that serves it. */
  fields: Record<string, FieldView[]>;
  /** What `expand` names on its list and show in each version that serves it. */
  relations: Record<string, RelationView[]>;
}

export interface QueryView {
  name: string;
  description?: string;
  versions: string[];
  params: { name: string; type: string }[];
  columns?: string[];
}

export interface VersionView {
  label: string;
  deprecated?: { since?: string; sunset?: string };
}

export interface RouteView {
  method: string;
  path: string;
  operationId: string;
  summary?: string;
  deprecated: boolean;
  /** The table, or "custom queries". */
  tag: string;
}

/** What a valid manifest serves, for the Data and API pages. */
export interface ModelView {
  project: string;
  database: string;
  versions: VersionView[];
  tables: TableView[];
  queries: QueryView[];
  /** The routes of each version, from its OpenAPI document. */
  routes: Record<string, RouteView[]>;
}

export interface ProjectDetail {
  id: string;
  dir: string;
  file: string;
  /** The manifest file's text, and its hash (sent back on save: a file changed meanwhile is not overwritten). */
  text: string;
  hash: string;
  /** The manifest's data, when the file parses (even if invalid). */
  manifest?: unknown;
  problems: ProblemAt[];
  /** The CLI's message for an invalid manifest. */
  invalid?: string;
  model?: ModelView;
  /** The tables and fields the latest migration made (what a rename keeps the data of); none before the first. */
  applied?: Record<string, string[]>;
  server: ServerState;
}

/** A renamed table, field, query or parameter (the designer renames keys in place). */
export interface Rename {
  path: (string | number)[];
  from: string;
  to: string;
}

export interface EditBody {
  manifest: unknown;
  renames?: Rename[];
  /** On save: the hash of the text the edit started from. */
  hash?: string;
}

export interface ValidateAnswer {
  problems: ProblemAt[];
  /** The file's text the edit gives. */
  text: string;
  /** When the edit is valid: the relations each table can expand, by table (the designer's hints). */
  relations?: Record<string, RelationView[]>;
}

export interface FileChange {
  path: string;
  status: "differs" | "missing" | "extra";
  diff: string;
}

export interface RiskView {
  text: string;
  rows?: number;
}

export interface Plan {
  /** What `generate --check` finds: the files generate would write, change or remove. */
  files: FileChange[];
  /** The breaks of published versions (`--allow-breaking`), and the versions they touch. */
  breaks: string[];
  brokenVersions: string[];
  migration: {
    renames: string[];
    changes: string[];
    /** What cannot be migrated as written. */
    problems: string[];
  };
  /** What the change would lose (`--accept-data-loss`). */
  risks: RiskView[];
  /** Migrations written and not yet applied (undefined: the database cannot be read). */
  pending?: string[];
  generated: boolean;
}

export interface ApplyBody {
  acceptDataLoss?: boolean;
  allowBreaking?: string[];
}

/** One line of a long step's NDJSON stream. */
export type StreamEvent =
  | { type: "progress"; text: string }
  | { type: "problems"; problems: string[] }
  | { type: "error"; message: string }
  | { type: "done"; result?: unknown };

export interface CreateBody {
  name: string;
  database: string;
  start: "blank" | "example" | "ai";
  prompt?: string;
}

export interface AiBody {
  /** new: a manifest drafted afresh (its tables replace the current ones); extend: the current one changed; revise: the draft so far changed. */
  mode: "new" | "extend" | "revise";
  prompt: string;
  /** For revise: the draft being revised. */
  draft?: string;
}

export interface DraftChange {
  kind: "added" | "removed" | "changed";
  what: string;
}

export interface AiDraft {
  id: string;
  /** The manifest's text if accepted, and the unified diff from the current one. */
  text: string;
  diff: string;
  changes: DraftChange[];
  repairs: number;
  summary: string;
}

export interface SettingsView {
  /** The key, masked; how many keys the rotation holds (more than one: a rotation in progress). */
  key?: string;
  keys: number;
  /** Where the key and the database URL come from: the .env beside the manifest, or the environment (which wins). */
  keyFrom: "env file" | "environment" | "none";
  databaseUrl?: string;
  databaseUrlFrom: "env file" | "environment" | "default" | "none";
  versions: VersionView[];
  /** The scoped keys (API_KEY_<NAME> in the .env): never a secret or a hash. */
  scopedKeys: ScopedKeyView[];
  /** Why the scoped keys cannot be read (a broken line of the .env, a manifest that does not compile). */
  scopedKeysProblem?: string;
}

/** A scoped key as `tablegen keys list` shows it. */
export interface ScopedKeyView {
  name: string;
  /** As written: `posts:read,comments:write`. */
  scope: string;
  /** `100/min`, when the key has a limit. */
  limit?: string;
  /** When the key stops working (ISO 8601), if ever. */
  expires?: string;
  expired: boolean;
  /** What the manifest no longer has that the scope names: the server refuses to start with it. */
  stale?: string;
}

/** A scoped key just made: its secret, shown once (the .env keeps only its hash). */
export interface NewScopedKey {
  name: string;
  secret: string;
  settings: SettingsView;
}
