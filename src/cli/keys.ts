import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { UserError } from "../errors.ts";
import { keyLines, readKeys, withKey, withoutKey, type FileKey } from "../keys/env-file.ts";
import { newKey, staleKeys, type KeyRequest, type StaleKey } from "../keys/keys.ts";
import { apiShape } from "../model/api-shape.ts";
import {
  formatExpiry,
  formatScope,
  hashSecret,
  isKeyName,
  KEY_PREFIX,
  keyVariable,
  type KeyEntry,
} from "../runtime/api-keys.ts";
import { readManifestFile } from "./host.ts";
import { shownPath } from "./paths.ts";
import { writeAtomically } from "./writer.ts";

// `tablegen keys new | list | revoke`: the keys of the `.env` beside a manifest (which the generated
// server reads at start). The functions return what they did, for the command's output and for
// any other front end (the studio's settings page); the files are read and written here only.

export interface KeysOptions {
  /** The manifest the `.env` lies beside, and whose tables, queries and versions scopes name. */
  manifest: string;
}

/** The `.env` beside a manifest, which must exist (the keys belong to its project). */
export function keyFile(manifest: string): string {
  if (!existsSync(manifest)) {
    throw new UserError(`${manifest}: manifest not found (run tablegen keys beside it, or give --manifest)`);
  }
  return join(dirname(manifest), ".env");
}

function readEnv(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/**
 * Writes the `.env` whole or not at all (a file beside it, then renamed over it), keeping its
 * mode; a new one is readable by its owner only.
 */
function writeEnv(file: string, text: string): void {
  writeAtomically(file, text, existsSync(file) ? statSync(file).mode & 0o777 : 0o600);
}

/** A key's scope, limit and expiry, as a line of output says them. */
export function describeKey(key: KeyEntry): string {
  const limit = key.limit ? `limit ${key.limit.text}` : "no limit";
  const expires = key.expires === undefined ? "never expires" : `expires ${formatExpiry(key.expires)}`;
  return `scope ${formatScope(key.scope)}, ${limit}, ${expires}`;
}

export interface NewKey {
  file: string;
  key: KeyEntry;
  /** Shown once: the file holds its hash only. */
  secret: string;
}

/** `tablegen keys new`: a key with a fresh secret (32 random bytes, base64url), added to the `.env`. */
export function createKey(request: KeyRequest, options: KeysOptions): NewKey {
  const file = keyFile(options.manifest);
  const text = readEnv(file);
  const { model } = readManifestFile(options.manifest);
  const secret = randomBytes(32).toString("base64url");
  const shown = shownPath(file);
  const key = newKey(request, {
    api: apiShape(model),
    keys: readKeys(shown, text),
    file: shown,
    hash: hashSecret(secret),
    now: Date.now(),
  });
  writeEnv(file, withKey(text, key));
  return { file, key, secret };
}

export interface KeyList {
  file: string;
  keys: FileKey[];
  /** Keys whose scope names what the manifest no longer has: the server will not start with them. */
  stale: StaleKey[];
}

/** `tablegen keys list`: the keys of the `.env`, and those the manifest's API would refuse. */
export function listKeys(options: KeysOptions): KeyList {
  const file = keyFile(options.manifest);
  const shown = shownPath(file);
  const keys = readKeys(shown, readEnv(file));
  const { model } = readManifestFile(options.manifest);
  return { file, keys, stale: staleKeys(keys, apiShape(model), shown) };
}

/**
 * `tablegen keys revoke`: the line of the key's variable removed from the `.env`, whether or not
 * its value is a valid key (revoking one that is not is how it gets out of the server's way).
 */
export function revokeKey(name: string, options: KeysOptions): { file: string; variable: string } {
  const file = keyFile(options.manifest);
  const text = readEnv(file);
  const defined = keyLines(text).map(({ variable }) => variable);
  const variable = isKeyName(name) ? keyVariable(name) : undefined;
  if (variable === undefined || !defined.includes(variable)) {
    const names = [...new Set(defined.map((other) => other.slice(KEY_PREFIX.length).toLowerCase()))];
    const known = names.length > 0 ? `its keys: ${names.join(", ")}` : "it has none";
    throw new UserError(`${shownPath(file)} has no key named ${name} (${known})`);
  }
  writeEnv(file, withoutKey(text, variable));
  return { file, variable };
}
