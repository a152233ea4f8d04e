import type { RawManifest } from "../manifest/schema.ts";
import type { Target } from "../targets/index.ts";
import { fileTree, type FileTree } from "../tree/file-tree.ts";
import { formatFile, serverFormatter } from "./format.ts";
import type { Sources } from "./templates.ts";

/** Where a server keeps its migrations. */
export const MIGRATIONS = "prisma/migrations";

/** The manifest a migration was made from, kept beside it so the next one needs no database. */
export const SNAPSHOT = "tablegen.json";

export interface Migration {
  /** The folder's name, `<UTC timestamp>_<label>`. */
  name: string;
  /** What Prisma computed (and the renames before it), not yet wrapped. */
  sql: string;
  /** The Prisma schema the migration leads to. */
  schema: string;
  manifest: RawManifest;
}

/**
 * A migration folder as files: the script (all-or-nothing, as the target wraps it), the Prisma
 * schema it leads to and the manifest it was made from (laid out by the server's formatter, as
 * prettier would); and Prisma's lock file for the first one.
 */
export async function emitMigration(
  migration: Migration,
  target: Target,
  first: boolean,
  sources: Sources,
): Promise<FileTree> {
  const dir = `${MIGRATIONS}/${migration.name}`;
  const snapshot = JSON.stringify(migration.manifest, null, 2) + "\n";
  return fileTree([
    [
      `${dir}/migration.sql`,
      "-- Written by tablegen: a migration never changes once applied.\n" +
        target.migrationScript(`${migration.sql.trim()}\n\n${target.recordFinished(migration.name)}\n`),
    ],
    [`${dir}/schema.prisma`, migration.schema],
    [`${dir}/${SNAPSHOT}`, await formatFile(SNAPSHOT, snapshot, serverFormatter(sources).options)],
    ...(first
      ? [
          [
            `${MIGRATIONS}/migration_lock.toml`,
            `# Written by tablegen; Prisma checks it.\nprovider = "${target.provider}"\n`,
          ] as const,
        ]
      : []),
  ]);
}

/** A migration folder's name: `<UTC timestamp>_<label>`, later than every existing one. */
export function migrationFolderName(label: string, existing: readonly string[], now: Date): string {
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
