import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RawManifest } from "./manifest/schema.ts";
import { wrapSqliteMigration } from "./migrate/sqlite.ts";
import type { Model } from "./model/types.ts";
import { diffSchemas } from "./prisma/cli.ts";

/** The manifest a migration was made from, kept beside it so the next one needs no database. */
const SNAPSHOT = "tablegen.json";

/** A migration folder's name: `<UTC timestamp>_<label>`, later than every existing one. */
export function migrationFolderName(label: string, existing: string[], now = new Date()): string {
  let time = Math.floor(now.getTime() / 1000) * 1000;
  // One second after the latest folder's time, at once (stepping a second at a time from a clock far behind would hang).
  const latest = existing.at(-1)?.match(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/);
  const next = latest
    ? Date.parse(`${latest[1]}-${latest[2]}-${latest[3]}T${latest[4]}:${latest[5]}:${latest[6]}Z`) + 1000
    : NaN;
  if (next > time) time = next;
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 60) || "migration";
  return `${stamp(time)}_${slug}`;
}

export function migrationsDir(outDir: string): string {
  return join(outDir, "prisma", "migrations");
}

/** Migration folders of a server, oldest first. */
export function existingMigrations(outDir: string): string[] {
  const dir = migrationsDir(outDir);
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

/** The manifest the latest migration was made from, if it kept one. */
export async function latestSnapshot(outDir: string): Promise<RawManifest | undefined> {
  const latest = existingMigrations(outDir).at(-1);
  const path = latest && join(migrationsDir(outDir), latest, SNAPSHOT);
  return path && existsSync(path) ? (JSON.parse(await readFile(path, "utf8")) as RawManifest) : undefined;
}

/** Turns diff SQL into the migration's script: all-or-nothing on SQLite, where Prisma does not wrap it. */
function migrationScript(sql: string, model: Model): string {
  return model.database === "sqlite" ? wrapSqliteMigration(sql) : `BEGIN;\n\n${sql.trim()}\n\nCOMMIT;\n`;
}

/**
 * Writes a migration folder: the script, the Prisma schema it leads to and the manifest it was
 * made from, so that the next migration can be computed from files alone.
 */
export async function writeMigration(
  outDir: string,
  name: string,
  migration: { sql: string; schema: string; manifest: RawManifest; model: Model },
): Promise<string> {
  const dir = join(migrationsDir(outDir), name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "migration.sql"), migrationScript(migration.sql, migration.model));
  await writeFile(join(dir, "schema.prisma"), migration.schema);
  await writeFile(join(dir, SNAPSHOT), JSON.stringify(migration.manifest, null, 2) + "\n");
  const lock = join(migrationsDir(outDir), "migration_lock.toml");
  if (!existsSync(lock)) {
    await writeFile(lock, `# Written by tablegen; Prisma checks it.\nprovider = "${migration.model.database}"\n`);
  }
  return dir;
}

/**
 * The SQL of a server's first migration, the whole schema from nothing, or undefined when the
 * server already has migrations. The diff takes a Prisma process (about a second), started before
 * this returns.
 */
export function initialMigrationSql(outDir: string, model: Model, schema: string): Promise<string | undefined> {
  if (existingMigrations(outDir).length > 0) return Promise.resolve(undefined);
  return diffSchemas(undefined, schema, model.database);
}

/** Writes a server's first migration folder. */
export function writeInitialMigration(
  outDir: string,
  migration: { sql: string; schema: string; manifest: RawManifest; model: Model },
): Promise<string> {
  return writeMigration(outDir, migrationFolderName("init", []), migration);
}
