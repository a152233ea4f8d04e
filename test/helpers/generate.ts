import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateServer } from "../../src/cli/generate.ts";
import { loadSources, readManifestFile } from "../../src/cli/host.ts";
import { writeOutput } from "../../src/cli/writer.ts";
import { emitServer } from "../../src/emit/index.ts";
import type { Database, RawManifest } from "../../src/manifest/schema.ts";
import { inspectQueries } from "../../src/cli/queries.ts";
import { buildModel, withQueryColumns } from "../../src/model/build.ts";
import type { Model } from "../../src/model/types.ts";
import type { FileTree } from "../../src/tree/file-tree.ts";
import { runRoot } from "./run-root.ts";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const EXAMPLES = join(REPO, "examples");

/**
 * A manifest's model with its queries' output columns, as `tablegen generate` describes them
 * (its query check, src/cli/queries.ts); throws what the check refuses.
 */
export async function describedModel(manifest: RawManifest): Promise<Model> {
  const model = buildModel(manifest);
  const { problems, columns } = await inspectQueries(model);
  if (problems.length > 0) throw new Error(problems.map(({ query, message }) => `${query}: ${message}`).join("\n"));
  return withQueryColumns(model, columns);
}

/** An example's manifest and model (moved to another database if asked). */
async function exampleModel(name: string, database?: Database): Promise<{ manifest: RawManifest; model: Model }> {
  const { manifest } = readManifestFile(join(EXAMPLES, `${name}.yaml`));
  if (database) manifest.database = database;
  return { manifest, model: await describedModel(manifest) };
}

export async function exampleTree(
  name: string,
  database?: Database,
): Promise<{ manifest: RawManifest; model: Model; tree: FileTree }> {
  const { manifest, model } = await exampleModel(name, database);
  return { manifest, model, tree: await emitServer(model, { manifestName: `${name}.yaml`, sources: loadSources() }) };
}

/**
 * A scratch directory in the test run's root under the OS temp dir (removed when the run ends),
 * beside a link to the repository's node_modules: generated servers resolve their dependencies
 * from it, as a user's would after `npm install`.
 */
export async function scratchDir(prefix: string): Promise<string> {
  return mkdtemp(join(runRoot(), `${prefix}-`));
}

/** Generates an example (on another database if asked) into a fresh scratch directory, with its first migration. */
export async function generateExample(name: string, database?: Database): Promise<{ dir: string; model: Model }> {
  const { manifest, model } = await exampleModel(name, database);
  const dir = await scratchDir(database ? `${name}-${database}` : name);
  const { tree, migration } = await generateServer(dir, { manifest, model }, `${name}.yaml`, Promise.resolve(model));
  writeOutput(dir, { generated: tree, created: migration?.files });
  return { dir, model };
}
