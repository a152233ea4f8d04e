import { buildModel } from "../model/build.ts";
import type { Model } from "../model/types.ts";
import { loadManifest, parseManifest } from "./load.ts";
import { validateManifest } from "./validate.ts";

/** Manifest file → validated, typed model. Throws a UserError listing every problem. */
export async function readModel(file: string): Promise<Model> {
  return buildModel(validateManifest(await loadManifest(file)));
}

/** The same from text already in memory (the AI generator's drafts, tests). */
export function modelFromText(file: string, text: string): Model {
  return buildModel(validateManifest(parseManifest(file, text)));
}
