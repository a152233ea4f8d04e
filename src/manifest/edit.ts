import { isDeepStrictEqual } from "node:util";
import { diffArrays } from "diff";
import { Document, isMap, isPair, isScalar, isSeq, parse, parseDocument, Scalar, YAMLMap, type Node } from "yaml";
import type { Path } from "./load.ts";

/**
 * Writing an edited manifest back into its file's text (the studio's Save), as a person editing
 * the file would: through the YAML document API, so that comments, key order, quoting and layout
 * of everything the edit leaves alone stay as they were, and what it adds is written in the style
 * of `examples/*.yaml` (a field on one line, flow lists, multi-line SQL as a block).
 *
 * The document API writes a whole document in its own layout (`[ v1 ]` for `[v1]`, one space
 * before a comment), so the edit is carried over to the file's own lines as a three-way merge:
 * the lines the edit changes in the library's layout replace the same lines of the file, and
 * every other line stays byte for byte what the user wrote.
 */

/** A renamed entry of a map: a table, a field, a query or a parameter, kept in its place under its new name. */
export interface KeyRename {
  /** The map holding it: `["tables"]`, `["tables", "posts", "fields"]`, `["queries"]`… */
  path: Path;
  from: string;
  to: string;
}

/**
 * The file's text with `next` as its data: renamed keys renamed in place, removed entries
 * removed, changed values changed and new entries appended to their maps. A `.json` file is
 * written as JSON, 2 spaces (JSON has no comments to keep).
 */
export function editedManifestText(
  file: string,
  text: string,
  next: unknown,
  renames: readonly KeyRename[] = [],
): string {
  if (file.toLowerCase().endsWith(".json")) return `${JSON.stringify(next, null, 2)}\n`;
  const doc: Document = parseDocument(text.startsWith("\uFEFF") ? text.slice(1) : text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    // Nothing to keep: a file that is not a YAML map is written anew.
    const fresh = new Document();
    fresh.contents = styled(fresh, next, []) as YAMLMap;
    return fresh.toString({ lineWidth: 0 });
  }
  const baseline = doc.toString({ lineWidth: 0 });
  for (const rename of renames) renameKey(doc, rename);
  doc.contents = merged(doc, doc.contents, next, []) as YAMLMap;
  const edited = doc.toString({ lineWidth: 0 });
  const kept = mergeLines(lines(baseline), lines(text), lines(edited)).join("");
  // The merge only moves whole lines; should it ever not give the edited data, the library's layout does.
  return isDeepStrictEqual(parseOrUndefined(kept), parse(edited)) ? kept : edited;
}

function parseOrUndefined(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

/** Lines with their line ends. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A change of `base` lines [start, end) to `lines`. */
interface Change {
  start: number;
  end: number;
  lines: string[];
}

function changes(base: string[], other: string[]): Change[] {
  const found: Change[] = [];
  let at = 0;
  let open: Change | undefined;
  for (const part of diffArrays(base, other)) {
    if (!part.added && !part.removed) {
      open = undefined;
      at += part.count ?? part.value.length;
      continue;
    }
    if (!open) found.push((open = { start: at, end: at, lines: [] }));
    if (part.removed) {
      at += part.value.length;
      open.end = at;
    } else open.lines.push(...part.value);
  }
  return found;
}

/**
 * A three-way merge of lines: `mine` is the file, `base` the same document in the library's layout,
 * `theirs` the edited document in that layout. Where the edit changed nothing, the file's lines
 * stay; where it did, its lines (flow lists as the examples write them, `[v1]`) replace them.
 */
function mergeLines(base: string[], mine: string[], theirs: string[]): string[] {
  const regions = [
    ...changes(base, mine).map((change) => ({ ...change, edit: false })),
    ...changes(base, theirs).map((change) => ({ ...change, edit: true })),
  ].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: { start: number; end: number; parts: typeof regions }[] = [];
  for (const region of regions) {
    const last = merged.at(-1);
    // Only changes of the same lines conflict: one next to another is made as it is (an insertion
    // before lines another side replaces goes first).
    if (last && region.start < last.end) {
      last.end = Math.max(last.end, region.end);
      last.parts.push(region);
    } else merged.push({ start: region.start, end: region.end, parts: [region] });
  }
  const result: string[] = [];
  let at = 0;
  for (const { start, end, parts } of merged) {
    result.push(...base.slice(at, start));
    const edit = parts.some((part) => part.edit);
    // One side's version of base[start, end): its changes applied, the base lines between them kept.
    let position = start;
    for (const part of parts.filter((candidate) => candidate.edit === edit)) {
      result.push(...base.slice(position, part.start), ...(edit ? part.lines.map(unpadded) : part.lines));
      position = part.end;
    }
    result.push(...base.slice(position, end));
    at = end;
  }
  result.push(...base.slice(at));
  return result;
}

/** A flow list of names as prettier and the examples write it: `[v1, v2]`, `[[a, b]]`, not `[ v1, v2 ]`. */
function unpadded(line: string): string {
  const names = /\[ ([\w-]+(?:, [\w-]+)*) \]/g;
  const lists = /\[ (\[[\w, -]*\](?:, \[[\w, -]*\])*) \]/g;
  return line.replace(names, "[$1]").replace(lists, "[$1]");
}

function renameKey(doc: Document, { path, from, to }: KeyRename): void {
  const map = doc.getIn(path, true);
  if (!isMap(map) || from === to) return;
  const pair = map.items.find((item) => keyOf(item.key) === from);
  if (!pair || map.items.some((item) => keyOf(item.key) === to)) return;
  if (isScalar(pair.key)) pair.key.value = to;
  else pair.key = doc.createNode(to);
}

/** The node for `value` at `path`, reusing `node` (its comments and style) as far as the value allows. */
function merged(doc: Document, node: unknown, value: unknown, path: Path): Node {
  if (isNode(node) && isDeepStrictEqual(node.toJSON(), value)) return node;
  const shaped = shorthand(value, path);
  if (isMap(node) && isRecord(shaped)) {
    for (const pair of [...node.items]) {
      const key = keyOf(pair.key);
      if (!Object.hasOwn(shaped, String(key))) node.delete(pair.key);
    }
    for (const [key, item] of Object.entries(shaped)) {
      const pair = node.items.find((candidate) => keyOf(candidate.key) === key);
      if (pair) pair.value = merged(doc, pair.value, item, [...path, key]);
      else if (item !== undefined) node.items.push(doc.createPair(key, styled(doc, item, [...path, key])));
    }
    return node;
  }
  if (isSeq(node) && Array.isArray(shaped)) {
    node.items = shaped.map((item, index) => merged(doc, node.items[index], item, [...path, index]));
    return node;
  }
  if (isScalar(node) && !isObject(shaped)) {
    node.value = shaped;
    if (typeof shaped === "string" && shaped.includes("\n")) node.type = Scalar.BLOCK_LITERAL;
    else if (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) node.type = undefined;
    return node;
  }
  // Another kind of value (a shorthand field given options): a new node, keeping the old one's comments.
  const fresh = styled(doc, shaped, path);
  if (isNode(node)) {
    fresh.comment = node.comment;
    fresh.commentBefore = node.commentBefore;
  }
  return fresh;
}

/** A new node for `value`, in the examples' style. */
function styled(doc: Document, value: unknown, path: Path): Node {
  const node = doc.createNode(shorthand(value, path)) as Node;
  const visit = (current: unknown, at: Path) => {
    if (isSeq(current)) {
      current.flow = true;
      current.items.forEach((item, index) => visit(item, [...at, index]));
    } else if (isMap(current)) {
      if (isFieldPath(at) || isParamsPath(at) || isVersionPolicyPath(at)) current.flow = true;
      for (const pair of current.items) if (isPair(pair)) visit(pair.value, [...at, String(keyOf(pair.key))]);
    } else if (isScalar(current) && typeof current.value === "string" && current.value.includes("\n")) {
      current.type = Scalar.BLOCK_LITERAL;
    }
  };
  visit(node, path);
  return node;
}

/**
 * A field whose only option is its type is written as the type alone, as `manifestText` writes it:
 * at `path` and in every table or field under it.
 */
function shorthand(value: unknown, path: Path): unknown {
  if (!isRecord(value)) return value;
  if (isFieldPath(path)) {
    const keys = Object.keys(value);
    return keys.length === 1 && keys[0] === "type" && typeof value.type === "string" ? value.type : value;
  }
  if (path.length > 3 || (path.length > 0 && path[0] !== "tables")) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shorthand(item, [...path, key])]));
}

/** tables.<table>.fields.<field> */
const isFieldPath = (path: Path) => path.length === 4 && path[0] === "tables" && path[2] === "fields";
/** queries.<query>.params */
const isParamsPath = (path: Path) => path.length === 3 && path[0] === "queries" && path[2] === "params";
/** versions.<label> */
const isVersionPolicyPath = (path: Path) => path.length === 2 && path[0] === "versions";

function keyOf(key: unknown): unknown {
  return isScalar(key) ? key.value : key;
}

function isNode(value: unknown): value is Node {
  return isMap(value) || isSeq(value) || isScalar(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}
