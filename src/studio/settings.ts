import { existsSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { createKey, listKeys, revokeKey } from "../cli/keys.ts";
import { newSignatureKey } from "../cli/project-files.ts";
import { UserError } from "../errors.ts";
import { parseManifest } from "../manifest/load.ts";
import { DATABASES, versionLabels, type Database, type RawManifest } from "../manifest/schema.ts";
import { targetFor } from "../targets/index.ts";
import { envValues, masked, maskedUrl, withEnvValue } from "./env-file.ts";
import { KeyRequestError, type KeyRequest } from "../keys/keys.ts";
import { formatExpiry, formatScope } from "../runtime/api-keys.ts";
import type { ProblemAt, ScopedKeyView, SettingsView, VersionView } from "./protocol.ts";
import { Conflict, readManifestText, shown, type Project } from "./workspace.ts";

/**
 * A project's settings: its API signature key and database URL, in the `.env` beside its manifest
 * (where `tablegen init` writes them, and the generated server and `tablegen migrate` read them;
 * a variable set in the environment wins over it, as it does for them), and its versions.
 */

const KEY = "API_SIGNATURE_KEY";
const URL_VARIABLE = "DATABASE_URL";

const envPath = (project: Project) => join(project.dir, ".env");

function envText(project: Project): string {
  return existsSync(envPath(project)) ? readFileSync(envPath(project), "utf8") : "";
}

function writeEnv(project: Project, text: string): void {
  writeFileSync(envPath(project), text, { mode: 0o600 });
  // A secret: an existing file keeps its mode otherwise.
  chmodSync(envPath(project), 0o600);
}

/** The keys the server accepts, the first the one clients use (`new,old` during a rotation). */
function keysOf(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter(Boolean);
}

/** The key a request to the project's server carries: the first it accepts. */
export function signatureKey(project: Project): string | undefined {
  return keysOf(process.env[KEY] ?? envValues(envText(project))[KEY])[0];
}

export function settingsView(project: Project): SettingsView {
  const env = envValues(envText(project));
  const keys = keysOf(process.env[KEY] ?? env[KEY]);
  const manifest = manifestOf(project);
  const database = databaseOf(manifest);
  const url = process.env[URL_VARIABLE] || env[URL_VARIABLE] || targetFor(database).implicitDatabaseUrl;
  return {
    ...(keys[0] !== undefined && { key: masked(keys[0]) }),
    keys: keys.length,
    keyFrom: process.env[KEY] !== undefined ? "environment" : env[KEY] !== undefined ? "env file" : "none",
    ...(url !== undefined && { databaseUrl: maskedUrl(url) }),
    databaseUrlFrom: process.env[URL_VARIABLE]
      ? "environment"
      : env[URL_VARIABLE]
        ? "env file"
        : url !== undefined
          ? "default"
          : "none",
    versions: versionsOf(manifest),
    ...scopedKeysOf(project),
  };
}

/** The scoped keys as `tablegen keys list` reads them (the same function), or why they cannot be read. */
function scopedKeysOf(project: Project): Pick<SettingsView, "scopedKeys" | "scopedKeysProblem"> {
  try {
    const { keys, stale } = listKeys({ manifest: project.manifest });
    const now = Date.now();
    return {
      scopedKeys: keys.map((key): ScopedKeyView => {
        const problem = stale.find((other) => other.variable === key.variable);
        return {
          name: key.name,
          scope: formatScope(key.scope),
          ...(key.limit && { limit: key.limit.text }),
          ...(key.expires !== undefined && { expires: formatExpiry(key.expires) }),
          expired: key.expires !== undefined && key.expires <= now,
          ...(problem !== undefined && { stale: problem.problems }),
        };
      }),
    };
  } catch (error) {
    return { scopedKeys: [], scopedKeysProblem: (error as Error).message };
  }
}

/** A refused key request, its reason placed at the field of the form it is about. */
export class KeyRefused extends UserError {
  constructor(readonly problems: ProblemAt[]) {
    super(problems[0]!.message);
  }
}

/** `tablegen keys new` from the page: the same function, its refusal placed at the field it names. */
export function newScopedKey(project: Project, body: Record<string, unknown>): string {
  const text = (field: string) =>
    typeof body[field] === "string" && body[field].trim() !== "" ? body[field].trim() : undefined;
  const request: KeyRequest = {
    name: text("name") ?? "",
    scope: text("scope") ?? "",
    ...(text("expires") !== undefined && { expires: text("expires")! }),
    ...(text("limit") !== undefined && { limit: text("limit")! }),
  };
  try {
    return createKey(request, { manifest: project.manifest }).secret;
  } catch (error) {
    if (!(error instanceof KeyRequestError)) throw error;
    throw new KeyRefused([{ path: [error.field], message: error.reason }]);
  }
}

/** `tablegen keys revoke` from the page. */
export function revokeScopedKey(project: Project, name: string): void {
  revokeKey(name, { manifest: project.manifest });
}

function manifestOf(project: Project): RawManifest | undefined {
  try {
    return parseManifest(project.manifest, readManifestText(project).text).data as RawManifest;
  } catch {
    return undefined;
  }
}

/** The manifest's database (SQLite when it names none, or none tablegen knows: the validator says so elsewhere). */
function databaseOf(manifest: RawManifest | undefined): Database {
  const database = manifest?.database;
  return DATABASES.find((known) => known === database) ?? "sqlite";
}

function versionsOf(manifest: RawManifest | undefined): VersionView[] {
  const versions = manifest?.versions;
  return versionLabels(versions).map((label) => {
    const policy = versions && !Array.isArray(versions) ? versions[label] : undefined;
    if (!policy || (policy.deprecated === undefined && policy.sunset === undefined)) return { label };
    const since = typeof policy.deprecated === "string" ? policy.deprecated : undefined;
    return { label, deprecated: { ...(since && { since }), ...(policy.sunset && { sunset: policy.sunset }) } };
  });
}

function refuseFromEnvironment(project: Project, variable: string): void {
  if (process.env[variable] !== undefined) {
    throw new Conflict(
      `${variable} is set in the environment tablegen studio was started from, which wins over ${shown(envPath(project))}: change it there`,
    );
  }
}

/** The whole key, for the page's Copy and Reveal (never in a log). */
export function revealKey(project: Project): string {
  const key = signatureKey(project);
  if (key === undefined) throw new Conflict(`${shown(envPath(project))} holds no ${KEY}: rotate to make one`);
  return key;
}

/**
 * Starts a rotation: a fresh key first, the ones in use after it (the server accepts every one of a
 * comma-separated list), so clients move to the new key while the old one still works.
 */
export function rotateKey(project: Project): void {
  refuseFromEnvironment(project, KEY);
  const text = envText(project);
  const keys = keysOf(envValues(text)[KEY]);
  writeEnv(project, withEnvValue(text, KEY, [newSignatureKey(), ...keys].join(",")));
}

/** Ends a rotation: only the newest key is accepted from now on. */
export function finishRotation(project: Project): void {
  refuseFromEnvironment(project, KEY);
  const text = envText(project);
  const keys = keysOf(envValues(text)[KEY]);
  if (keys.length < 2) throw new Conflict(`No rotation is under way: ${KEY} holds one key`);
  writeEnv(project, withEnvValue(text, KEY, keys[0]!));
}

/** Sets DATABASE_URL in the project's `.env`, checked for the project's database. */
export function setDatabaseUrl(project: Project, url: unknown): void {
  refuseFromEnvironment(project, URL_VARIABLE);
  if (typeof url !== "string" || url.trim() === "") throw new UserError("DATABASE_URL must not be empty");
  if (/["'\s\\]/.test(url) || /[\u0000-\u001f\u007f]/.test(url))
    throw new UserError("DATABASE_URL must not hold quotes, spaces, backslashes or line breaks");
  const problem = targetFor(databaseOf(manifestOf(project))).urlProblem(url);
  if (problem) throw new UserError(problem);
  writeEnv(project, withEnvValue(envText(project), URL_VARIABLE, url, true));
}
