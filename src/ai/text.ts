import { Document, Scalar, isMap, isPair, visit } from "yaml";
import { manifestSchema } from "../manifest/schema.ts";

/**
 * A drafted manifest as the text of its file, in the style of `examples/*.yaml`: type-only fields
 * as the shorthand `name: TEXT`, each field and each query's params on one line, multi-line SQL as
 * a block. A `.json` file is written as JSON (which has no comments).
 */
export function manifestText(manifest: unknown, file: string, comment?: string): string {
  const data = withShorthands(manifest);
  if (file.toLowerCase().endsWith(".json")) return `${JSON.stringify(data, null, 2)}\n`;

  const doc = new Document(data);
  if (comment) doc.commentBefore = comment.replace(/^/gm, " ");
  visit(doc, { Seq: (_key, node) => void (node.flow = true) });
  visit(doc, {
    Pair: (_key, pair, path) => {
      const parentKeys = path.filter((node) => isPair(node)).map((node) => keyOf(node));
      const key = keyOf(pair);
      const depth = parentKeys.length;
      // tables.<t>.fields.<f> and queries.<q>.params: one line each.
      const inFields = depth === 3 && parentKeys[0] === "tables" && parentKeys[2] === "fields";
      const isParams = depth === 2 && parentKeys[0] === "queries" && key === "params";
      if ((inFields || isParams) && isMap(pair.value)) pair.value.flow = true;
      if (depth === 2 && parentKeys[0] === "queries" && key === "sql" && pair.value instanceof Scalar) {
        if (typeof pair.value.value === "string" && pair.value.value.includes("\n"))
          pair.value.type = Scalar.BLOCK_LITERAL;
      }
    },
  });
  return doc.toString({ lineWidth: 0 });
}

function keyOf(node: unknown): unknown {
  const key = (node as { key?: unknown }).key;
  return key instanceof Scalar ? key.value : key;
}

/** The manifest's keys in the schema's order; fields whose only option is their type as the type alone. */
function withShorthands(data: unknown): unknown {
  if (!isRecord(data)) return data;
  const order = Object.keys(manifestSchema.shape);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const manifest = Object.fromEntries(Object.entries(data).sort(([a], [b]) => rank(a) - rank(b)));
  if (!isRecord(manifest.tables)) return manifest;
  const tables = Object.fromEntries(
    Object.entries(manifest.tables).map(([name, table]) => {
      if (!isRecord(table) || !isRecord(table.fields)) return [name, table];
      const fields = Object.fromEntries(
        Object.entries(table.fields).map(([fieldName, field]) => [
          fieldName,
          isRecord(field) && Object.keys(field).length === 1 && typeof field.type === "string" ? field.type : field,
        ]),
      );
      return [name, { ...table, fields }];
    }),
  );
  return { ...manifest, tables };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
