/**
 * Values written as TypeScript literals, on one line: the templates' `{{{ts value}}}`. The layout
 * is the formatter's (src/emit/format.ts), which breaks what does not fit the print width.
 */

/** Code written as it is inside a value: an identifier, a call. */
export class Code {
  constructor(readonly text: string) {}
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * A value as a TypeScript literal: objects, arrays, strings, numbers, booleans, null, and Code.
 * An object's keys are quoted only when one of them must be, and then all are (as prettier's
 * `quoteProps: "as-needed"` keeps them: it unquotes no key of an object with one that needs quotes).
 */
export function tsLiteral(value: unknown): string {
  if (value instanceof Code) return value.text;
  if (Array.isArray(value)) return `[${value.map(tsLiteral).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    // As JSON.stringify: a property whose value is undefined is left out.
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return "{}";
    const quoted = entries.some(([key]) => !IDENTIFIER.test(key) && !INDEX.test(key));
    const key = (name: string) => (quoted ? JSON.stringify(name) : name);
    return `{ ${entries.map(([name, item]) => `${key(name)}: ${tsLiteral(item)}`).join(", ")} }`;
  }
  return value === undefined ? "undefined" : JSON.stringify(value);
}
