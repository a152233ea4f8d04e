import { buildModel } from "../model/build.ts";
import type { Model } from "../model/types.ts";
import { loadManifest, parseManifest } from "./load.ts";
import type { RawManifest } from "./schema.ts";
import { validateManifest } from "./validate.ts";

/** Manifest file → validated manifest and its typed model. Throws a UserError listing every problem. */
export async function readManifest(file: string): Promise<{ manifest: RawManifest; model: Model }> {
  const manifest = validateManifest(await loadManifest(file));
  return { manifest, model: buildModel(manifest) };
}

/** Manifest file → validated, typed model. */
export async function readModel(file: string): Promise<Model> {
  return (await readManifest(file)).model;
}

/** The same from text already in memory (the AI generator's drafts, tests). */
export function modelFromText(file: string, text: string): Model {
  return buildModel(validateManifest(parseManifest(file, text)));
}
