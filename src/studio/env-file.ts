import { parseEnv } from "node:util";

/**
 * A project's `.env` as text: its values read as the generated server reads them (Node's
 * parseEnv), and one value set in place, every other line kept as it is.
 */

export function envValues(text: string): Record<string, string> {
  return parseEnv(text) as Record<string, string>;
}

/** The text with `NAME=value` replacing the variable's line (the first), or appended. */
export function withEnvValue(text: string, name: string, value: string, quoted = false): string {
  const line = `${name}=${quoted ? `"${value}"` : value}`;
  const pattern = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=.*$`, "m");
  if (pattern.test(text)) return text.replace(pattern, () => line);
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  return `${text}${separator}${line}\n`;
}

/** A secret as a page may show it: its first four characters, then dots. */
export function masked(secret: string): string {
  return secret.length <= 8 ? "•".repeat(8) : `${secret.slice(0, 4)}${"•".repeat(12)}`;
}

/** A database URL with its password masked. */
export function maskedUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:•••@");
}
