import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { renderer } from "../emit/templates.ts";
import type { Database } from "../manifest/schema.ts";
import { targetFor } from "../targets/index.ts";
import { templatePath } from "../targets/target.ts";
import { loadSources } from "./host.ts";

// What a project directory holds beside its manifest, written by `init` and, when missing, by `ai`.

/** A fresh API signature key: 32 random bytes, base64url. */
export function newSignatureKey(): string {
  return randomBytes(32).toString("base64url");
}

export function defaultDatabaseUrl(database: Database, project: string): string {
  return targetFor(database).defaultDatabaseUrl(project);
}

/** A new project's `.env`: a fresh API signature key and the database's default URL. */
export function envFile(database: Database, project: string): string {
  return `API_SIGNATURE_KEY=${newSignatureKey()}\nDATABASE_URL="${defaultDatabaseUrl(database, project)}"\n`;
}

/**
 * The `.gitignore` to write: the template when there is none, the existing one with the
 * template's missing lines appended (so that `.env` is never committed), or undefined when it
 * already has them all.
 */
export async function gitignoreContent(path: string): Promise<string | undefined> {
  const template = renderer(loadSources())(templatePath<object>("init/gitignore.hbs"), {});
  if (!existsSync(path)) return template;
  const existing = await readFile(path, "utf8");
  const present = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = template.split("\n").filter((line) => line !== "" && !present.has(line));
  if (missing.length === 0) return undefined;
  const separator = existing === "" || existing.endsWith("\n") ? "" : "\n";
  return `${existing}${separator}${missing.join("\n")}\n`;
}
