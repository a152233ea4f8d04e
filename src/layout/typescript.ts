/**
 * TypeScript written in prettier's layout (its defaults: double quotes, trailing commas, spaces in
 * braces) by the templates' helpers, so that generation can keep a rendered file as it is instead of
 * running prettier over it (src/emit/code-layout.ts). Each function makes the choice prettier makes
 * for its construct: on one line when it fits the print width, else broken as prettier breaks it.
 * Code that does not fit even broken is left for prettier: its line is too long, and the file is
 * formatted. test/emit/rendered.test.ts checks the results against prettier over names of every length.
 */

/** Code written as it is inside a value: an identifier, a call with no argument to break. */
export class Code {
  constructor(readonly text: string) {}
}

/** A call inside a value: prettier puts its arguments on one line, or one a line. */
export class Call {
  constructor(
    readonly callee: string,
    readonly args: readonly unknown[],
  ) {}
}

/** A string literal as prettier writes it: double quotes, unless the text holds more of them than single ones. */
export function tsString(text: string): string {
  const json = JSON.stringify(text);
  if (!text.includes('"')) return json;
  const doubles = text.split('"').length - 1;
  const singles = text.split("'").length - 1;
  if (doubles <= singles) return json;
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** An object key as prettier writes it (quotes only where needed: every key of ours is a name or a number). */
function tsKey(key: string, quoted: boolean): string {
  return quoted ? tsString(key) : key;
}

/** Prettier quotes every key of an object when one needs quotes (its `quoteProps: "as-needed"` keeps them consistent). */
const needsQuotes = (keys: string[]) => keys.some((key) => !IDENTIFIER.test(key) && !/^(0|[1-9][0-9]*)$/.test(key));

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    !(value instanceof Code) &&
    !(value instanceof Call)
  );
}

/**
 * The value on one line, or undefined as soon as it is longer than `room`: a value is written out
 * flat only as far as a line's width at each level it is laid out at.
 */
function flat(value: unknown, room = Infinity): string | undefined {
  const joined = (open: string, parts: (readonly [string, unknown])[], close: string) => {
    let text = open;
    for (const [index, [prefix, part]] of parts.entries()) {
      const written = flat(part, room - text.length);
      if (written === undefined) return undefined;
      text += (index > 0 ? ", " : "") + prefix + written;
      if (text.length > room) return undefined;
    }
    text += close;
    return text.length <= room ? text : undefined;
  };
  let text: string | undefined;
  if (value instanceof Code) text = value.text;
  else if (value instanceof Call)
    text = joined(
      `${value.callee}(`,
      value.args.map((arg) => ["", arg]),
      ")",
    );
  else if (Array.isArray(value))
    text = joined(
      "[",
      value.map((item) => ["", item]),
      "]",
    );
  else if (isObject(value)) {
    const keys = Object.keys(value);
    const quoted = needsQuotes(keys);
    text =
      keys.length === 0
        ? "{}"
        : joined(
            "{ ",
            keys.map((key) => [`${tsKey(key, quoted)}: `, value[key]]),
            " }",
          );
  } else if (typeof value === "string") text = tsString(value);
  else if (typeof value === "number") text = String(value).replace("e+", "e");
  else text = JSON.stringify(value);
  return text !== undefined && text.length <= room ? text : undefined;
}

/**
 * Prettier breaks an array of two or more objects (or arrays) of two or more entries each, whatever
 * its width.
 */
function alwaysBroken(items: readonly unknown[]): boolean {
  if (items.length < 2) return false;
  const size = (item: unknown) => (Array.isArray(item) ? item.length : isObject(item) ? Object.keys(item).length : 0);
  const allObjects = items.every((item) => isObject(item) && size(item) > 1);
  const allArrays = items.every((item) => Array.isArray(item) && size(item) > 1);
  return allObjects || allArrays;
}

/**
 * A value laid out from `column` (where it starts) with `tail` characters after it on its line, its
 * broken lines indented from `indent`.
 */
export function tsValue(value: unknown, indent: string, column: number, tail: number, printWidth: number): string {
  if (value instanceof Code) return value.text;
  const one = flat(value, printWidth - column - tail);
  const fits = one !== undefined;
  const inner = indent + "  ";
  if (value instanceof Call) {
    if (one !== undefined) return one;
    if (value.args.length === 0) return flat(value)!;
    // The last argument an object or array, the others short: prettier hugs it when the first line fits.
    const last = value.args.at(-1);
    const others = value.args.slice(0, -1);
    if ((isObject(last) || Array.isArray(last)) && others.every((arg) => !isObject(arg) && !Array.isArray(arg))) {
      const head = `${value.callee}(${others.map((arg) => flat(arg) + ", ").join("")}`;
      if (column + head.length + 1 <= printWidth) {
        return `${head}${tsValue(last, indent, printWidth, tail + 1, printWidth)})`;
      }
    }
    const args = value.args.map((arg) => `${inner}${tsValue(arg, inner, inner.length, 1, printWidth)},`);
    return `${value.callee}(\n${args.join("\n")}\n${indent})`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (fits && !alwaysBroken(value)) return one;
    if (value.length > 1 && value.every((item) => typeof item === "number")) {
      // Prettier fills an array of numbers: as many a line as fit.
      const lines: string[] = [];
      let line = "";
      for (const item of value.map((number) => flat(number)!)) {
        const next = line === "" ? item + "," : `${line} ${item},`;
        if (line !== "" && inner.length + next.length > printWidth) {
          lines.push(line);
          line = item + ",";
        } else line = next;
      }
      lines.push(line);
      return `[\n${lines.map((text) => inner + text).join("\n")}\n${indent}]`;
    }
    const items = value.map((item) => `${inner}${tsValue(item, inner, inner.length, 1, printWidth)},`);
    return `[\n${items.join("\n")}\n${indent}]`;
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    if (fits) return one;
    const quoted = needsQuotes(keys);
    const entries = keys.map((key) => {
      const prefix = `${inner}${tsKey(key, quoted)}: `;
      return `${prefix}${tsValue(value[key], inner, prefix.length, 1, printWidth)},`;
    });
    return `{\n${entries.join("\n")}\n${indent}}`;
  }
  return flat(value)!;
}

/**
 * A statement or line that ends in a value: `prefix`, the value laid out where it starts, `suffix`
 * (`const record = ` … ` as const;`), at `indent`.
 */
export function tsLine(indent: string, prefix: string, value: unknown, suffix: string, printWidth: number): string {
  const start = indent + prefix;
  return start + tsValue(value, indent, start.length, suffix.length, printWidth) + suffix;
}

/** An import as prettier writes it: its names on one line when they fit (one name always), else one a line. */
export function tsImport(names: readonly string[], from: string, printWidth: number, typeOnly = false): string {
  const head = typeOnly ? "import type" : "import";
  const line = `${head} { ${names.join(", ")} } from ${tsString(from)};`;
  if (line.length <= printWidth || names.length === 1) return line;
  return `${head} {\n${names.map((name) => `  ${name},`).join("\n")}\n} from ${tsString(from)};`;
}
