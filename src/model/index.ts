import { parseManifest, type ManifestSource } from "../manifest/load.ts";
import type { RawManifest } from "../manifest/schema.ts";
import { validateManifest } from "../manifest/validate.ts";
import { buildModel } from "./build.ts";
import type { Model } from "./types.ts";

/** A manifest read and checked, and the model built from it, once. */
export interface Compiled {
  manifest: RawManifest;
  model: Model;
  /** Where in the manifest's file a value is written, for problems found later (custom queries). */
  locate?: ManifestSource["locate"];
}

/**
 * The front of the pipeline: manifest text → validated manifest → typed model. Throws a
 * ManifestError listing every problem, each located in `file`.
 */
export function compileManifest(file: string, text: string): Compiled {
  const source = parseManifest(file, text);
  const manifest = validateManifest(source);
  return { manifest, model: buildModel(manifest), locate: source.locate };
}
