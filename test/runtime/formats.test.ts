import { describe, expect, it } from "vitest";
import { FORMAT_PATTERNS, formats, isEmail, isInt64, isPhone } from "../../src/runtime/formats.ts";

// The contract's own formats (src/runtime/formats.ts, the generated server's src/http/formats.ts):
// each check is the regular expression the OpenAPI documents give as the format's `pattern`, so a
// tool reading a document accepts exactly what the server does.

/** The phone check as it was written before issue 31: a character class, then 7 to 15 digits counted. */
function phoneBefore(value: string): boolean {
  if (!/^\+?[0-9 ().-]+$/.test(value)) return false;
  const digits = value.replace(/\D/g, "").length;
  return digits >= 7 && digits <= 15;
}

/** Every string of up to `length` characters over `alphabet`, in order. */
function* strings(alphabet: string, length: number): Generator<string> {
  yield "";
  if (length === 0) return;
  for (const shorter of strings(alphabet, length - 1))
    if (shorter.length === length - 1) for (const character of alphabet) yield shorter + character;
}

/** A deterministic stream of strings over `alphabet`, of up to 24 characters. */
function* pseudoRandom(alphabet: string, count: number): Generator<string> {
  let seed = 31;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < count; i++) {
    const length = next() % 25;
    yield Array.from({ length }, () => alphabet[next() % alphabet.length]).join("");
  }
}

describe("the formats of the contract", () => {
  it("check phone and email with the patterns the documents give, compiled as Ajv compiles a pattern", () => {
    expect(formats.phone).toBe(isPhone);
    expect(formats.email).toBe(isEmail);
    for (const value of [
      "+1 555 0100",
      "(020) 7946 0958",
      "5550100",
      "12",
      "lorem",
      "+1 (555) 0100 x2",
      "ada@example.com",
    ]) {
      expect(isPhone(value), value).toBe(new RegExp(FORMAT_PATTERNS.phone, "u").test(value));
      expect(isEmail(value), value).toBe(new RegExp(FORMAT_PATTERNS.email, "u").test(value));
    }
  });

  it("accept exactly the phone numbers the server accepted before the check became one pattern", () => {
    let accepted = 0;
    let checked = 0;
    const check = (value: string) => {
      expect(isPhone(value), JSON.stringify(value)).toBe(phoneBefore(value));
      if (phoneBefore(value)) accepted++;
      checked++;
    };
    // Every short string over the characters that matter, and long ones around the digit limits.
    for (const value of strings("1 (+-.a", 6)) check(value);
    for (const value of pseudoRandom("0123456789 ().-+x@\t", 50_000)) check(value);
    for (let digits = 5; digits <= 17; digits++) {
      check("9".repeat(digits));
      check(`+${"1 ".repeat(digits)}`);
      check(`(${"2".repeat(digits)})-`);
    }
    expect(checked).toBeGreaterThan(100_000);
    expect(accepted).toBeGreaterThan(500);
  });

  it("refuse a phone number of fewer than 7 or more than 15 digits, or with other characters", () => {
    expect(["1234567", "+1 234-567.890 (12)", "123456789012345"].filter(isPhone)).toHaveLength(3);
    expect(["123456", "1234567890123456", "+1 555 0100 ext", "++15550100", "1+5550100", ""].filter(isPhone)).toEqual(
      [],
    );
  });

  // Issue 30: bigint ids and references, strings of digits within PostgreSQL's int8.
  it("check int64 strings: the documents' pattern, and int8's range", () => {
    expect(formats.int64).toBe(isInt64);
    const accepted = ["0", "1", "-1", "9007199254740993", "9223372036854775807", "-9223372036854775808", "007"];
    expect(accepted.filter(isInt64)).toEqual(accepted);
    const refused = ["", "-", "+1", "1.5", "1e3", " 1", "abc", "0x10", "9223372036854775808", "-9223372036854775809"];
    expect(refused.filter(isInt64)).toEqual([]);
    // Longer than any int8 can be written, whatever it says, without reading it as a number.
    expect(isInt64("0".repeat(20) + "1")).toBe(false);
    expect(isInt64("9".repeat(100_000))).toBe(false);
    for (const value of [...accepted, ...refused.slice(0, 8)])
      expect(new RegExp(FORMAT_PATTERNS.int64, "u").test(value) || !isInt64(value), value).toBe(true);
  });
});
