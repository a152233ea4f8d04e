import { emitServer, type EmitOptions } from "./emit/index.ts";
import { emitPrismaSchema } from "./emit/prisma-schema.ts";
import type { RawManifest } from "./manifest/schema.ts";
import { initialMigrationSql, writeInitialMigration } from "./migrations.ts";
import type { Model } from "./model/types.ts";
import type { FileTree } from "./tree/file-tree.ts";
import { writeTree } from "./tree/writer.ts";

export interface WrittenServer {
  tree: FileTree;
  written: string[];
  removed: string[];
  /** The first migration's folder, when the server had none. */
  migration?: string;
}

/**
 * Emits a server and writes its files and, when it has no migration yet, its first one. That
 * migration's diff takes a Prisma process (about a second): it starts first and runs while the
 * files are emitted and written; its folder is written after them.
 */
export async function writeServer(
  outDir: string,
  source: { manifest: RawManifest; model: Model },
  options: EmitOptions,
): Promise<WrittenServer> {
  const { manifest, model } = source;
  const schema = emitPrismaSchema(model);
  const diff = initialMigrationSql(outDir, model, schema);
  const tree = emitServer(model, options);
  const [files, sql] = await Promise.all([writeTree(outDir, tree), diff]);
  if (sql === undefined) return { tree, ...files };
  return { tree, ...files, migration: await writeInitialMigration(outDir, { sql, schema, manifest, model }) };
}
