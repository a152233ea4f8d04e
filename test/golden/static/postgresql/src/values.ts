import { nowToTheSecond } from "./now.js";

/** An RFC 3339 date-time (already validated) truncated to whole seconds, as PostgreSQL takes it. */
export function storedDateTime(value: string | null | undefined): string | null {
  if (value == null) return null;
  const normalized = value.replace(" ", "T").replace(/\.\d+/, "").toUpperCase();
  return new Date(normalized).toISOString().slice(0, 19) + "Z";
}

export function storedNow(): string {
  return nowToTheSecond() + "Z";
}

/**
 * Rewrites the given fields' numbers in records' JSON text as JSON.stringify writes them: PostgreSQL
 * prints a double's digits its own way (`1e+16`, sometimes a 17th digit), JavaScript another
 * (`10000000000000000`). A key is always after `{` or `,`; inside a string its quotes are escaped.
 */
export function jsonDoubles(fields: string[]): (json: string) => string {
  const numbers = new RegExp(`([{,]"(?:${fields.join("|")})":)(-?[0-9][0-9.e+-]*)`, "g");
  return (json) => json.replace(numbers, (_, key: string, value: string) => key + Number(value));
}
