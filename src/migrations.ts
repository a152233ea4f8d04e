import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Model } from "./model/types.ts";
import { diffSchemas } from "./prisma/cli.ts";

/** A migration folder's name: `<UTC timestamp>_<label>`, as Prisma names them. */
export function migrationFolderName(label: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return `${stamp}_${label.replace(/[^a-z0-9_]+/gi, "_").toLowerCase()}`;
}

export async function existingMigrations(outDir: string): Promise<string[]> {
  const dir = join(outDir, "prisma", "migrations");
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql"))).map((entry) => entry.name).sort();
}

/**
 * Writes a migration folder: the SQL, and the schema it leads to, so that the next migration can
 * be computed from files alone, without a database.
 */
export async function writeMigration(outDir: string, name: string, sql: string, schema: string, model: Model): Promise<string> {
  const dir = join(outDir, "prisma", "migrations", name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "migration.sql"), sql);
  await writeFile(join(dir, "schema.prisma"), schema);
  const lock = join(outDir, "prisma", "migrations", "migration_lock.toml");
  if (!existsSync(lock)) {
    await writeFile(lock, `# Written by tablegen; Prisma checks it.\nprovider = "${model.database}"\n`);
  }
  return dir;
}

/** The first migration of a server that has none: the whole schema from nothing. */
export async function writeInitialMigration(outDir: string, model: Model, now = new Date()): Promise<string | undefined> {
  if ((await existingMigrations(outDir)).length > 0) return undefined;
  const schemaPath = join(outDir, "prisma", "schema.prisma");
  const sql = await diffSchemas(undefined, schemaPath, model.database, outDir);
  return writeMigration(outDir, migrationFolderName("init", now), sql, await readFile(schemaPath, "utf8"), model);
}
