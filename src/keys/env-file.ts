import { parseEnv } from "node:util";
import { UserError } from "../errors.ts";
import { formatKeyEntry, KEY_PREFIX, KeyError, parseKeyEntry, type KeyEntry } from "../runtime/api-keys.ts";

// The keys of a project's `.env` (the file beside the manifest, which the server reads), read and
// edited as text: every other line, comment and blank is kept as it is.

/** A key of an env file, and the line that defines it. */
export interface FileKey extends KeyEntry {
  line: number;
}

/** `NAME=` at the start of a line (after an optional `export`), as dotenv files define variables. */
const DEFINITION = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/;

/** The API_KEY_ variables a file's text defines, each with its line, in the file's order, valid or not. */
export function keyLines(text: string): { variable: string; line: number }[] {
  return text.split(/\r?\n/).flatMap((content, index) => {
    const variable = DEFINITION.exec(content)?.[1];
    return variable?.startsWith(KEY_PREFIX) ? [{ variable, line: index + 1 }] : [];
  });
}

/**
 * Every key an env file's text defines, in the file's order, its value read as the server's
 * dotenv reader reads it (node:util's parseEnv). Throws one UserError listing each definition that
 * is not a key, at `<file>:<line>`, as the server would refuse it.
 */
export function readKeys(file: string, text: string): FileKey[] {
  const values = parseEnv(text);
  const keys: FileKey[] = [];
  const problems: string[] = [];
  const first = new Map<string, number>();
  const hashes = new Map<string, string>();
  for (const { variable, line } of keyLines(text)) {
    const earlier = first.get(variable);
    if (earlier !== undefined) {
      problems.push(`${file}:${line} ${variable}: defined again (first on line ${earlier}): keep one`);
      continue;
    }
    first.set(variable, line);
    try {
      const key = parseKeyEntry(variable, values[variable] ?? "");
      const twin = hashes.get(key.hash);
      if (twin !== undefined) throw new KeyError(variable, `holds the same secret's hash as ${twin}`);
      hashes.set(key.hash, variable);
      keys.push({ ...key, line });
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
      problems.push(`${file}:${line} ${variable}: ${error.message}`);
    }
  }
  if (problems.length === 1) throw new UserError(problems[0]);
  if (problems.length > 1)
    throw new UserError(`${file}: ${problems.length} keys are not valid:\n  ${problems.join("\n  ")}`);
  return keys;
}

/** The text with a key's variable added at its end. */
export function withKey(text: string, key: KeyEntry): string {
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  return `${text}${separator}${key.variable}="${formatKeyEntry(key)}"\n`;
}

/** The text without the line that defines a key's variable. */
export function withoutKey(text: string, variable: string): string {
  const lines = new Set(keyLines(text).flatMap((found) => (found.variable === variable ? [found.line] : [])));
  return text
    .split(/(?<=\n)/)
    .filter((_, index) => !lines.has(index + 1))
    .join("");
}
