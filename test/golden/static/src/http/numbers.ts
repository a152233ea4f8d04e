/** A number as JSON writes it, the form a body's numbers take: `12`, `-1.5`, `1e3`, `2.5E-1` (not `+1`, `01`, `.5`). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A number from the query string or the path, read as a JSON body's number is (so `1e0` is 1
 * there as it is in a body), or undefined when the text is not one or is out of a double's range.
 */
export function jsonNumber(text: string): number | undefined {
  if (!JSON_NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}
