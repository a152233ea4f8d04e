import { LineCounter, parseDocument, isAlias, isMap, isNode, isScalar, isSeq, type Document } from "yaml";
import { UserError } from "../errors.ts";
import { jsonSyntaxError, positionAt } from "./json.ts";

export type Path = readonly (string | number)[];

export interface Position {
  line: number;
  column: number;
}

/** A parsed manifest file: its data, and where in the file each value came from. */
export interface ManifestSource {
  file: string;
  data: unknown;
  /**
   * Where the value at `path` is written, or with `key` its name (the key of its pair). A path
   * that does not exist in the file is placed at the name of its deepest existing ancestor.
   */
  locate(path: Path, key?: boolean): Position;
}

/**
 * Parses YAML or JSON. A `.json` file must be strict JSON; it is then read by the YAML parser too
 * (JSON is YAML), so that both formats keep line numbers.
 */
export function parseManifest(file: string, source: string): ManifestSource {
  const text = source.startsWith("\uFEFF") ? source.slice(1) : source;
  const lineCounter = new LineCounter();
  const json = file.toLowerCase().endsWith(".json");
  if (json) {
    const error = jsonSyntaxError(text);
    if (error) {
      const { line, column } = positionAt(text, error.offset);
      throw new UserError(`${file}:${line}:${column}: invalid JSON: ${error.message}`);
    }
  }
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const [syntaxError] = doc.errors;
  if (syntaxError) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
    throw new UserError(`${file}:${line}:${col}: invalid ${json ? "JSON" : "YAML"}: ${syntaxReason(doc, syntaxError)}`);
  }
  return {
    file,
    data: doc.toJS() as unknown,
    locate: (path, key = false) => locate(doc, lineCounter, path, key),
  };
}

function syntaxReason(doc: Document, error: Document["errors"][number]): string {
  switch (error.code) {
    case "DUPLICATE_KEY": {
      const key = duplicateKeyAt(doc.contents, error.pos[0]);
      return key === undefined ? "duplicate key" : `duplicate key ${JSON.stringify(key)}`;
    }
    case "MULTIPLE_DOCS":
      return "more than one document (a manifest is a single document)";
    default:
      return error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  }
}

/** The key written at `offset`, searched for in the document's maps. */
function duplicateKeyAt(node: unknown, offset: number): string | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isNode(pair.key) && pair.key.range?.[0] === offset) return keyName(pair.key);
      const found = duplicateKeyAt(pair.value, offset);
      if (found !== undefined) return found;
    }
  } else if (isSeq(node)) {
    for (const item of node.items) {
      const found = duplicateKeyAt(item, offset);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function keyName(key: unknown): string {
  return String(isScalar(key) ? key.value : key);
}

function locate(doc: Document, lineCounter: LineCounter, path: Path, wantKey: boolean): Position {
  let node: unknown = doc.contents;
  let name: unknown = undefined;
  let found = 0;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => keyName(item.key) === String(segment));
      if (!pair) break;
      name = pair.key;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number" && segment < node.items.length) {
      node = node.items[segment];
      name = node;
    } else break;
    found++;
  }
  const value = isNode(node) && node.range && node.range[0] < node.range[1] ? node : undefined;
  const target = found < path.length || wantKey ? (name ?? value) : (value ?? name);
  if (isNode(target) && target.range) {
    const { line, col } = lineCounter.linePos(target.range[0]);
    return { line, column: col };
  }
  return { line: 1, column: 1 };
}
