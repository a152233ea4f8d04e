import { parse } from "yaml";
import { buildModel, withQueryColumns } from "../../src/model/build.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import type { QueryColumn, ValueKind } from "../../src/model/types.ts";

// Manifests renamed to names of one length, for the test that templates write prettier's layout
// whatever the names (test/emit/rendered.test.ts).

export const LENGTHS = [2, 24, 63];
const KINDS: (ValueKind | undefined)[] = ["integer", "float", "text", "boolean", "datetime", "uuid", undefined];

/** A name `length` long for the n-th name of a manifest: letters that tell it apart, then zeros. */
export function nameOf(n: number, length: number): string {
  let letters = "";
  for (let rest = n; ; rest = Math.floor(rest / 26) - 1) {
    letters = String.fromCharCode(97 + (rest % 26)) + letters;
    if (rest < 26) break;
  }
  return letters.padEnd(length, "0");
}

/** The manifest's text with each of its names (project, tables, fields, queries, parameters) `length` long. */
export function renamed(text: string, length: number): RawManifest {
  const model = buildModel(parse(text) as RawManifest);
  const names = new Set<string>();
  for (const table of model.tables) {
    names.add(table.name);
    for (const field of table.fields) {
      names.add(field.name);
      for (const name of Object.values(field.names ?? {})) names.add(name);
    }
  }
  for (const query of model.queries) {
    names.add(query.name);
    for (const param of query.params) names.add(param.name);
  }
  names.delete("id");
  let renamedText = text.replace(/^project: .*$/m, `project: ${nameOf(0, length)}`);
  [...names].forEach((name, index) => {
    renamedText = renamedText.replace(new RegExp(`\\b${name}\\b`, "g"), nameOf(index + 1, length));
  });
  return parse(renamedText) as RawManifest;
}

/** The model of a renamed manifest, its queries given columns of every kind named like its fields. */
export function modelOf(manifest: RawManifest) {
  const model = buildModel(manifest);
  const columns = new Map<string, QueryColumn[]>(
    model.queries.map((query) => [
      query.name,
      KINDS.map((kind, index) => ({ name: `${query.name.slice(0, -1)}${index}`, kind })) as QueryColumn[],
    ]),
  );
  return withQueryColumns(model, columns);
}
