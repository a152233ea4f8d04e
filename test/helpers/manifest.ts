import { readManifestFile } from "../../src/cli/host.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import { compileManifest } from "../../src/model/index.ts";
import type { Model } from "../../src/model/types.ts";

/** A manifest file read as the CLI reads it: validated, with its model (a promise, for `.resolves`/`.rejects`). */
export async function readManifest(file: string): Promise<{ manifest: RawManifest; model: Model }> {
  return readManifestFile(file);
}

export async function readModel(file: string): Promise<Model> {
  return readManifestFile(file).model;
}

/** The model of a manifest's text. */
export function modelFromText(file: string, text: string): Model {
  return compileManifest(file, text).model;
}
