import { hash } from "node:crypto";

/**
 * Keys that can be handed out, besides API_SIGNATURE_KEY (which can do everything): one variable
 * per key in the server's environment (its `.env`), which `tablegen keys new` writes,
 *
 *   API_KEY_<NAME>="sha256:<hex>;scope=<scope>[;expires=<date-time>][;limit=<count>/<unit>]"
 *
 * holding the SHA-256 of the key's secret (never the secret), what it may do, until when, and how
 * often. The server reads the variables at start and tablegen writes them: one grammar for both.
 *
 * A scope is a comma-separated list of `<target>[@<version>]:<grant>`: the target a table, a
 * custom query or `*` (all of them); the grant one action of a table (`list`, `show`, `create`,
 * `update`, `delete`), `read` (list, show and queries) or `write` (everything); a version pins the
 * entry to that version of the API. `posts:read,comments:write,*@v2:list`.
 */

/** Every key variable starts with this; the rest, in lower case, is the key's name. */
export const KEY_PREFIX = "API_KEY_";

/** The actions of a table's routes. */
export const ACTIONS = ["list", "show", "create", "update", "delete"] as const;
export type Action = (typeof ACTIONS)[number];

/** What a scope entry grants: an action, `read` (list, show, queries) or `write` (everything). */
export const GRANTS = [...ACTIONS, "read", "write"] as const;
export type Grant = (typeof GRANTS)[number];

export interface ScopeEntry {
  /** A table, a custom query, or `*`: every table and query. */
  target: string;
  /** The version the entry is pinned to; every version when absent. */
  version?: string;
  grant: Grant;
}

export interface RateLimit {
  /** Requests allowed in each window. */
  count: number;
  /** The window, in seconds: 1, 60, 3600 or 86400. */
  seconds: number;
  /** As written in the variable: `100/min`. */
  text: string;
}

/** A key as its variable declares it. */
export interface KeyEntry {
  /** `mobile`, from API_KEY_MOBILE. */
  name: string;
  variable: string;
  /** SHA-256 of the secret, 64 lowercase hex digits. */
  hash: string;
  scope: ScopeEntry[];
  /** The instant the key stops working, in milliseconds since the epoch. */
  expires?: number;
  limit?: RateLimit;
}

/** What the API serves: its versions, and the versions of each table and custom query. */
export interface ApiShape {
  project: string;
  versions: readonly string[];
  tables: Readonly<Record<string, readonly string[]>>;
  queries: Readonly<Record<string, readonly string[]>>;
}

/** What a route of the API is, for a scope: an action of a table, or a custom query, in a version. */
export type RouteTarget =
  { kind: "table"; name: string; action: Action; version: string } | { kind: "query"; name: string; version: string };

/** A variable's value that is not a key: the message says why, `variable` which. */
export class KeyError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** SHA-256 of a secret (UTF-8) as its variable holds it: what a presented key is looked up by. */
export function hashSecret(secret: string): string {
  // The one-shot hash: a third of createHash's time on a key's few bytes.
  return hash("sha256", secret, "hex");
}

/**
 * The key whose secret a presented value is, if it has not expired: found by the SHA-256 of the
 * value, never by the value itself, so that no comparison's time depends on a secret (the server's
 * key check, src/http/auth.ts). None without keys: nothing is hashed then.
 */
export function scopedKeyLookup(
  keys: readonly KeyEntry[],
  now: () => number = Date.now,
): ((presented: string) => KeyEntry | undefined) | undefined {
  if (keys.length === 0) return undefined;
  const byHash = new Map(keys.map((key) => [key.hash, key]));
  return (presented) => {
    if (presented === "") return undefined;
    const key = byHash.get(hashSecret(presented));
    return key !== undefined && (key.expires === undefined || now() < key.expires) ? key : undefined;
  };
}

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
const TARGET = /^(\*|[a-z][a-z0-9_]*)$/;
const VERSION = /^v[0-9]+$/;
const HASH = /^sha256:([0-9a-fA-F]{64})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2}))?$/;
const UNITS: Record<string, [seconds: number, canonical: string]> = {
  s: [1, "sec"],
  sec: [1, "sec"],
  second: [1, "sec"],
  m: [60, "min"],
  min: [60, "min"],
  minute: [60, "min"],
  h: [3600, "hour"],
  hour: [3600, "hour"],
  d: [86400, "day"],
  day: [86400, "day"],
};
const MAX_COUNT = 1_000_000_000;

/** A key's name: what follows API_KEY_, in lower case. */
export function isKeyName(name: string): boolean {
  return NAME.test(name);
}

export const keyVariable = (name: string) => `${KEY_PREFIX}${name.toUpperCase()}`;

/** The keys of an environment, by variable name; throws a KeyError for the first that is not one. */
export function keyEntries(env: Readonly<Record<string, string | undefined>>): KeyEntry[] {
  const keys: KeyEntry[] = [];
  const byHash = new Map<string, string>();
  for (const variable of Object.keys(env).sort()) {
    if (!variable.startsWith(KEY_PREFIX)) continue;
    const key = parseKeyEntry(variable, env[variable] ?? "");
    const twin = byHash.get(key.hash);
    if (twin !== undefined) throw new KeyError(variable, `holds the same secret's hash as ${twin}`);
    byHash.set(key.hash, variable);
    keys.push(key);
  }
  return keys;
}

/** One variable's key; throws a KeyError saying what is wrong with it. */
export function parseKeyEntry(variable: string, value: string): KeyEntry {
  const fail = (message: string): never => {
    throw new KeyError(variable, message);
  };
  const name = variable.slice(KEY_PREFIX.length).toLowerCase();
  if (!variable.startsWith(KEY_PREFIX) || !NAME.test(name) || variable !== keyVariable(name)) {
    fail(`is not a key's name: ${KEY_PREFIX} is followed by capital letters, digits and _, starting with a letter`);
  }
  const [first = "", ...settings] = unquoted(value.trim())
    .split(";")
    .map((part) => part.trim());
  const hash = HASH.exec(first)?.[1];
  if (hash === undefined) {
    fail(`must start with sha256:<64 hex digits>, the SHA-256 of the key's secret ("tablegen keys new" writes it)`);
  }
  const seen = new Map<string, string>();
  for (const setting of settings) {
    const equals = setting.indexOf("=");
    const setName = equals < 0 ? setting : setting.slice(0, equals).trim();
    if (!["scope", "expires", "limit"].includes(setName)) {
      fail(`unknown setting "${setName}" (expected scope=, expires= or limit=, separated by ;)`);
    }
    if (seen.has(setName)) fail(`sets ${setName} twice`);
    seen.set(setName, equals < 0 ? "" : setting.slice(equals + 1).trim());
  }
  const scopeText = seen.get("scope");
  if (scopeText === undefined) fail("has no scope=: say what the key may do, e.g. scope=posts:read");
  const expiresText = seen.get("expires");
  const limitText = seen.get("limit");
  try {
    return {
      name,
      variable,
      hash: hash!.toLowerCase(),
      scope: parseScope(scopeText!),
      ...(expiresText !== undefined && { expires: parseExpiry(expiresText) }),
      ...(limitText !== undefined && { limit: parseLimit(limitText) }),
    };
  } catch (error) {
    throw new KeyError(variable, (error as Error).message);
  }
}

/** A value as a dotenv parser that keeps quotes (`docker run --env-file`) passes it on. */
function unquoted(value: string): string {
  return /^(["']).*\1$/.test(value) && value.length >= 2 ? value.slice(1, -1) : value;
}

/** The variable's value for a key. */
export function formatKeyEntry(key: Omit<KeyEntry, "name" | "variable">): string {
  return [
    `sha256:${key.hash}`,
    `scope=${formatScope(key.scope)}`,
    ...(key.expires !== undefined ? [`expires=${formatExpiry(key.expires)}`] : []),
    ...(key.limit !== undefined ? [`limit=${key.limit.text}`] : []),
  ].join(";");
}

/** A scope as written: entries separated by commas (spaces around them allowed). */
export function parseScope(text: string): ScopeEntry[] {
  if (text.trim() === "")
    throw new Error("scope is empty: give at least one <table or query>:<action>, e.g. posts:read");
  return text.split(",").map((part) => parseScopeEntry(part.trim()));
}

function parseScopeEntry(entry: string): ScopeEntry {
  if (entry === "") throw new Error("scope has an empty entry (two commas in a row, or one at an end)");
  const colon = entry.lastIndexOf(":");
  if (colon < 0)
    throw new Error(`scope entry "${entry}" names no action: write <table or query>:<action>, e.g. posts:read`);
  const grant = entry.slice(colon + 1);
  const [target = "", version, ...rest] = entry.slice(0, colon).split("@");
  if (!TARGET.test(target)) {
    throw new Error(`scope entry "${entry}": "${target}" is not a table or query name, or *`);
  }
  if (version !== undefined && (rest.length > 0 || !VERSION.test(version))) {
    throw new Error(`scope entry "${entry}": "${[version, ...rest].join("@")}" is not a version label (v1, v2…)`);
  }
  if (!(GRANTS as readonly string[]).includes(grant)) {
    throw new Error(
      `scope entry "${entry}": unknown action "${grant}" (expected ${GRANTS.slice(0, -1).join(", ")} or write)`,
    );
  }
  return { target, ...(version !== undefined && { version }), grant: grant as Grant };
}

export function formatScope(scope: readonly ScopeEntry[]): string {
  return scope.map(({ target, version, grant }) => `${target}${version ? `@${version}` : ""}:${grant}`).join(",");
}

/**
 * What in a scope the API does not have: a table or query it does not serve, an action a query
 * does not take, a version it does not have or a target does not serve in it. Empty when none.
 */
export function scopeProblems(scope: readonly ScopeEntry[], api: ApiShape): string[] {
  const problems: string[] = [];
  for (const { target, version, grant } of scope) {
    const tableVersions = Object.hasOwn(api.tables, target) ? api.tables[target] : undefined;
    const queryVersions = Object.hasOwn(api.queries, target) ? api.queries[target] : undefined;
    const entry = formatScope([{ target, version, grant }]);
    if (target !== "*" && tableVersions === undefined && queryVersions === undefined) {
      problems.push(`scope entry "${entry}": ${target} is no table or query of ${api.project}`);
      continue;
    }
    if (tableVersions === undefined && queryVersions !== undefined && (ACTIONS as readonly string[]).includes(grant)) {
      problems.push(`scope entry "${entry}": ${target} is a custom query, which takes read or write, not ${grant}`);
      continue;
    }
    if (version === undefined) continue;
    if (!api.versions.includes(version)) {
      problems.push(`scope entry "${entry}": ${version} is no version of ${api.project} (${api.versions.join(", ")})`);
    } else if (target !== "*" && ![...(tableVersions ?? []), ...(queryVersions ?? [])].includes(version)) {
      const served = [...new Set([...(tableVersions ?? []), ...(queryVersions ?? [])])].join(", ");
      problems.push(`scope entry "${entry}": ${target} is not served in ${version} (only in ${served})`);
    }
  }
  return problems;
}

/** Whether a scope lets a key reach a route. */
export function scopeAllows(scope: readonly ScopeEntry[], route: RouteTarget): boolean {
  return scope.some(({ target, version, grant }) => {
    if ((target !== "*" && target !== route.name) || (version !== undefined && version !== route.version)) return false;
    if (grant === "write") return true;
    if (route.kind === "query") return grant === "read";
    return grant === route.action || (grant === "read" && (route.action === "list" || route.action === "show"));
  });
}

/** `100/min` (also `/s`, `/sec`, `/second`, `/m`, `/minute`, `/h`, `/hour`, `/d`, `/day`). */
export function parseLimit(text: string): RateLimit {
  const match = /^(\d+)\s*\/\s*([a-z]+)$/.exec(text.trim());
  const count = match ? Number(match[1]) : NaN;
  const unit = match ? UNITS[match[2]!] : undefined;
  if (!unit || !Number.isSafeInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new Error(
      `limit "${text}" is not a number of requests per second, minute, hour or day, such as 100/min (1 to ${MAX_COUNT})`,
    );
  }
  return { count, seconds: unit[0], text: `${count}/${unit[1]}` };
}

/** `2027-01-01T00:00:00Z` (any RFC 3339 date-time with a zone, or a date: its midnight in UTC). */
export function parseExpiry(text: string): number {
  const value = text.trim();
  const [year = 0, month = 0, day = 0] = value.slice(0, 10).split("-").map(Number);
  const realDate = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
  const time = DATE_TIME.test(value) && realDate ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value) : NaN;
  if (Number.isNaN(time)) {
    throw new Error(`expires "${text}" is not a date-time with a time zone, such as 2027-01-01T00:00:00Z`);
  }
  return time;
}

/** An expiry as variables hold it: UTC, whole seconds. */
export function formatExpiry(time: number): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, "Z");
}
