import { UserError } from "../errors.ts";
import {
  formatExpiry,
  formatScope,
  isKeyName,
  keyVariable,
  parseExpiry,
  parseLimit,
  parseScope,
  scopeProblems,
  type ApiShape,
  type KeyEntry,
} from "../runtime/api-keys.ts";
import type { FileKey } from "./env-file.ts";

// What `tablegen keys` does, without its effects (the CLI reads and writes the files, and makes the
// secret): a new key checked against the API and the keys there are, and the keys as listed.

/** What `tablegen keys new` is asked for, as typed. */
export interface KeyRequest {
  name: string;
  scope: string;
  /** A duration from now (`90d`, `12h`, `2w`) or a date or date-time. */
  expires?: string;
  /** `100/min`. */
  limit?: string;
}

/** What of a key request a refusal is about: its name, or one of its options. */
export type KeyField = "name" | "scope" | "expires" | "limit";

/** A refused key request: the message says the option (`--scope: …`); `field` and `reason` say it apart. */
export class KeyRequestError extends UserError {
  constructor(
    readonly field: KeyField,
    readonly reason: string,
  ) {
    super(field === "name" ? reason : `--${field}: ${reason}`);
  }
}

const DAY_MS = 86_400_000;
const DURATION_UNITS: Record<string, number> = { h: DAY_MS / 24, d: DAY_MS, w: 7 * DAY_MS };

/**
 * A new key for the API (`api`, from the manifest), beside the keys of the file: its name, scope,
 * expiry and limit checked, the secret's hash as given. Throws one UserError naming the option.
 */
export function newKey(
  request: KeyRequest,
  context: { api: ApiShape; keys: FileKey[]; file: string; hash: string; now: number },
): KeyEntry {
  const { name } = request;
  if (!isKeyName(name)) {
    throw new KeyRequestError(
      "name",
      `"${name}" is not a key name: use lower-case letters, digits and _, starting with a letter, at most 63 characters`,
    );
  }
  const variable = keyVariable(name);
  const taken = context.keys.find((key) => key.variable === variable);
  if (taken) {
    throw new KeyRequestError(
      "name",
      `a key named ${name} exists already (${context.file}:${taken.line} ${variable}): revoke it first, or choose another name`,
    );
  }
  const scope = option("scope", () => parseScope(request.scope));
  const problems = scopeProblems(scope, context.api);
  if (problems.length > 0) throw new KeyRequestError("scope", problems.join("; "));
  const expires = request.expires === undefined ? undefined : expiryOption(request.expires, context.now);
  const limit = request.limit === undefined ? undefined : option("limit", () => parseLimit(request.limit!));
  return {
    name,
    variable,
    hash: context.hash,
    scope,
    ...(expires !== undefined && { expires }),
    ...(limit !== undefined && { limit }),
  };
}

/** An option's value, or a refusal naming the option with the grammar's message. */
function option<T>(field: KeyField, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new KeyRequestError(field, (error as Error).message);
  }
}

/** `--expires`: a duration from now (`90d`, `12h`, `2w`) or a date or date-time, in the future; whole seconds. */
export function expiryOption(text: string, now: number): number {
  const duration = /^(\d+)\s*([hdw])$/.exec(text.trim());
  let time: number;
  if (duration) {
    time = now + Number(duration[1]) * DURATION_UNITS[duration[2]!]!;
  } else {
    try {
      time = parseExpiry(text);
    } catch {
      throw new KeyRequestError(
        "expires",
        `"${text}" is neither a duration (90d, 12h, 2w) nor a date or date-time (2027-01-01, 2027-01-01T12:00:00Z)`,
      );
    }
  }
  const seconds = Math.floor(time / 1000) * 1000;
  if (seconds <= now) throw new KeyRequestError("expires", `${formatExpiry(seconds)} is not in the future`);
  return seconds;
}

/** The keys as `tablegen keys list` shows them: name, scope, limit, expiry; never a secret or a hash. */
export function keyTable(keys: readonly KeyEntry[], now: number): string {
  const rows = [
    ["name", "scope", "limit", "expires"],
    ...keys.map((key) => [
      key.name,
      formatScope(key.scope),
      key.limit?.text ?? "none",
      key.expires === undefined ? "never" : `${formatExpiry(key.expires)}${key.expires <= now ? " (expired)" : ""}`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** A key of the file whose scope names what the API does not have (the server would refuse to start with it). */
export interface StaleKey {
  variable: string;
  /** `.env:3 API_KEY_WEB: …`, as the CLI warns of it. */
  at: string;
  /** What the scope names that the API does not have, joined by `; `. */
  problems: string;
}

/** Problems of the file's keys against the API (the server would refuse to start with them), each at its line. */
export function staleKeys(keys: readonly FileKey[], api: ApiShape, file: string): StaleKey[] {
  return keys.flatMap((key) => {
    const problems = scopeProblems(key.scope, api);
    if (problems.length === 0) return [];
    const joined = problems.join("; ");
    return [{ variable: key.variable, at: `${file}:${key.line} ${key.variable}: ${joined}`, problems: joined }];
  });
}
