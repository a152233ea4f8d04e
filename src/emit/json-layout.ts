/**
 * A JSON file written by `JSON.stringify(value, null, 2)`, laid out as prettier would; undefined for
 * any other text (JSON with comments, or laid out by hand, as `.prettierrc.json`), which prettier lays out.
 */
export function laidOutJson(source: string, printWidth: number): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return undefined;
  }
  return source.trimEnd() === JSON.stringify(value, null, 2) ? jsonLayout(value, printWidth) : undefined;
}

/**
 * JSON laid out exactly as prettier's json parser lays out `JSON.stringify(value, null, 2)` (checked
 * against prettier over every generated document): objects one property a line (prettier keeps the
 * break after `{`), arrays on one line when they fit the print width, else one element a line. An
 * array of numbers only, which prettier fills, returns undefined: prettier lays it out.
 */
function jsonLayout(value: unknown, printWidth: number): string | undefined {
  let fallback = false;
  // Prettier breaks an array of several arrays of several elements each, whatever its width.
  const matrix = (item: unknown[]) =>
    item.length > 1 && item.every((element) => Array.isArray(element) && element.length > 1);
  const flat = (item: unknown): string | undefined => {
    if (Array.isArray(item)) {
      if (matrix(item)) return undefined;
      const parts = item.map(flat);
      return parts.includes(undefined) ? undefined : `[${parts.join(", ")}]`;
    }
    if (item !== null && typeof item === "object") return Object.keys(item).length === 0 ? "{}" : undefined;
    return JSON.stringify(item);
  };
  const print = (item: unknown, indent: string, column: number, tail: number): string => {
    if (Array.isArray(item)) {
      if (item.length === 0) return "[]";
      if (item.length > 1 && item.every((element) => typeof element === "number")) fallback = true;
      const one = flat(item);
      if (one !== undefined && column + one.length + tail <= printWidth) return one;
      const inner = indent + "  ";
      const lines = item.map(
        (element, index) =>
          inner +
          print(element, inner, inner.length, index < item.length - 1 ? 1 : 0) +
          (index < item.length - 1 ? "," : ""),
      );
      return `[\n${lines.join("\n")}\n${indent}]`;
    }
    if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      if (entries.length === 0) return "{}";
      const inner = indent + "  ";
      const lines = entries.map(([key, element], index) => {
        const prefix = `${inner}${JSON.stringify(key)}: `;
        const last = index === entries.length - 1;
        return prefix + print(element, inner, prefix.length, last ? 0 : 1) + (last ? "" : ",");
      });
      return `{\n${lines.join("\n")}\n${indent}}`;
    }
    return JSON.stringify(item);
  };
  const text = print(value, "", 0, 0) + "\n";
  return fallback ? undefined : text;
}
