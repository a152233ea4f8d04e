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
  // Objects stay one property a line, as JSON.stringify wrote them: prettier keeps the break after `{`.
  return source.trimEnd() === JSON.stringify(value, null, 2)
    ? compactJson(value, printWidth, { expandObjects: true })
    : undefined;
}

/**
 * A string's width as JSON writes it, quotes and escapes included. Text with characters beyond ASCII,
 * which prettier may count two columns wide, is counted wider than any line: what holds it is broken
 * (an object stays broken under prettier; only names, which are ASCII, are array elements).
 */
function quotedLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  if (/[\u0080-\uffff]/.test(text)) return Number.MAX_SAFE_INTEGER;
  return /["\\\u0000-\u001f\u007f]/.test(text) ? JSON.stringify(text).length : text.length + 2;
}

/**
 * A value as JSON in prettier's layout, written compactly: an object or array on one line when it
 * fits the print width (prettier keeps an object that it finds on one line there), else one entry a
 * line; an array of two or more objects (or arrays) of two or more entries each always broken, as
 * prettier breaks it. An array of numbers too long for its line, which prettier fills, returns
 * undefined: prettier lays out the file (from `JSON.stringify(value, null, 2)`). With
 * `expandObjects`, every non-empty object is broken instead, as JSON.stringify and npm write them.
 */
export function compactJson(
  value: unknown,
  printWidth: number,
  { expandObjects = false }: { expandObjects?: boolean } = {},
): string | undefined {
  let fallback = false;
  const size = (item: unknown) =>
    Array.isArray(item) ? item.length : item !== null && typeof item === "object" ? Object.keys(item).length : 0;
  const alwaysBroken = (items: unknown[]) =>
    items.length > 1 &&
    (items.every((item) => Array.isArray(item) && size(item) > 1) ||
      items.every((item) => item !== null && typeof item === "object" && !Array.isArray(item) && size(item) > 1));
  // The length of the value on one line, or -1 as soon as it is longer than `room`: a large document
  // is measured a line's width deep at each level, and only what fits is written out flat.
  const flatLength = (item: unknown, room: number): number => {
    if (item === null || typeof item !== "object") {
      const length = typeof item === "string" ? quotedLength(item) : JSON.stringify(item).length;
      return length <= room ? length : -1;
    }
    if (Array.isArray(item)) {
      let length = 1;
      for (const element of item) {
        if (length > 1) length += 2;
        const part = flatLength(element, room - length - 1);
        if (part < 0) return -1;
        length += part;
      }
      return length + 1 <= room ? length + 1 : -1;
    }
    const keys = Object.keys(item);
    if (keys.length === 0) return 2 <= room ? 2 : -1;
    if (expandObjects) return -1;
    let length = 2;
    for (const key of keys) {
      if (length > 2) length += 2;
      length += quotedLength(key) + 2;
      const part = flatLength((item as Record<string, unknown>)[key], room - length - 2);
      if (part < 0) return -1;
      length += part;
    }
    return length + 2 <= room ? length + 2 : -1;
  };
  const flat = (item: unknown): string => {
    if (Array.isArray(item)) return `[${item.map(flat).join(", ")}]`;
    if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      if (entries.length === 0) return "{}";
      return `{ ${entries.map(([key, element]) => `${JSON.stringify(key)}: ${flat(element)}`).join(", ")} }`;
    }
    return JSON.stringify(item);
  };
  const print = (item: unknown, indent: string, column: number, tail: number): string => {
    if (item === null || typeof item !== "object") return JSON.stringify(item);
    const fits = flatLength(item, printWidth - column - tail) >= 0;
    const one = fits ? flat(item) : undefined;
    const inner = indent + "  ";
    if (Array.isArray(item)) {
      if (item.length === 0) return "[]";
      if (fits && !alwaysBroken(item)) return one!;
      if (item.length > 1 && item.every((element) => typeof element === "number")) fallback = true;
      const lines = item.map((element, index) => {
        const last = index === item.length - 1;
        return inner + print(element, inner, inner.length, last ? 0 : 1) + (last ? "" : ",");
      });
      return `[\n${lines.join("\n")}\n${indent}]`;
    }
    const entries = Object.entries(item);
    if (entries.length === 0) return "{}";
    if (fits) return one!;
    const lines = entries.map(([key, element], index) => {
      const prefix = `${inner}${JSON.stringify(key)}: `;
      const last = index === entries.length - 1;
      return prefix + print(element, inner, prefix.length, last ? 0 : 1) + (last ? "" : ",");
    });
    return `{\n${lines.join("\n")}\n${indent}}`;
  };
  const text = print(value, "", 0, 0) + "\n";
  return fallback ? undefined : text;
}
