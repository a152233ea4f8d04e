import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument, isNode, type Document } from "yaml";
import { UserError } from "../errors.ts";

export type Path = readonly (string | number)[];

export interface Position {
  line: number;
  column: number;
}

/** A parsed manifest file: its data, and where in the file each value came from. */
export interface ManifestSource {
  file: string;
  data: unknown;
  locate(path: Path): Position;
}

export async function loadManifest(file: string): Promise<ManifestSource> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UserError(`${file}: manifest not found (run "tablegen init" to create one)`);
    if (code === "EISDIR") throw new UserError(`${file}: is a directory, not a manifest file`);
    throw new UserError(`${file}: cannot be read (${code ?? "unknown error"})`);
  }
  return parseManifest(file, text);
}

/** Parses YAML or JSON (JSON is read by the YAML parser too, so both keep line numbers). */
export function parseManifest(file: string, text: string): ManifestSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const [syntaxError] = doc.errors;
  if (syntaxError) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
    const reason = syntaxError.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "");
    throw new UserError(`${file}:${line}:${col}: invalid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${reason}`);
  }
  return {
    file,
    data: doc.toJS() as unknown,
    locate: (path) => locate(doc, lineCounter, path),
  };
}

/** The position of the deepest node of `path` that exists in the document. */
function locate(doc: Document, lineCounter: LineCounter, path: Path): Position {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) {
      const { line, col } = lineCounter.linePos(node.range[0]);
      return { line, column: col };
    }
  }
  return { line: 1, column: 1 };
}
