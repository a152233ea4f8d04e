import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { compactJson, laidOutJson } from "../../src/emit/json-layout.ts";

// Generated JSON (the OpenAPI documents, package.json) is laid out without prettier, as prettier lays it out.

const prettier = (source: string) => format(source, { parser: "json", printWidth: 40 });

describe("JSON laid out as prettier does", () => {
  const values: [string, unknown][] = [
    ["nested objects and empty ones", { a: { b: {}, c: [] }, d: null, e: true, f: 'x"y' }],
    [
      "an array that fits, and one a character too long",
      { short: ["aaaa", "bbbb"], long: ["aaaaaaaaa", "bbbbbbbbbb", "ccccccc"] },
    ],
    ["a trailing comma counted in the width", { first: ["aaaaaaaaa", "bbbbbbbbbb", "cc"], z: 1 }],
    [
      "arrays of objects and of arrays",
      {
        items: [{ a: 1 }, { b: 2 }],
        pairs: [
          ["a", "b"],
          ["c", "d"],
        ],
        empty: [{}],
      },
    ],
    ["a top-level array", ["one", { two: 2 }]],
    [
      "a matrix inside an array",
      {
        rows: [
          [
            ["a", "b"],
            ["c", "d"],
          ],
          "e",
        ],
      },
    ],
  ];
  it.each(values)("%s", async (_, value) => {
    const source = JSON.stringify(value, null, 2) + "\n";
    expect(laidOutJson(source, 40)).toBe(await prettier(source));
  });

  it.each(values)("%s, written compactly", async (_, value) => {
    const text = compactJson(value, 40)!;
    expect(text).toBe(await prettier(text));
  });

  it.each([
    ["an object that fits, on one line", { a: { b: 1, c: "x" } }, '{ "a": { "b": 1, "c": "x" } }\n'],
    ["a trailing comma counted in the width", { first: { aaaaa: "bbbbbbbbbbbbbb", c: 1 }, z: 1 }, null],
    [
      "an array of objects broken, one of one object kept",
      {
        d: [
          { x: 1, y: 2 },
          { x: 1, y: 2 },
        ],
        e: [{ x: 1 }],
      },
      null,
    ],
  ])("%s, written compactly", async (_, value, expected) => {
    const text = compactJson(value, 40)!;
    expect(text).toBe(await prettier(JSON.stringify(value)));
    if (expected !== null) expect(text).toBe(expected);
  });

  it("leaves to prettier what it fills or what was not written by JSON.stringify", async () => {
    expect(compactJson({ numbers: [1, 2, 3] }, 40)).toBe('{ "numbers": [1, 2, 3] }\n');
    expect(compactJson({ numbers: Array.from({ length: 20 }, (_, n) => n) }, 40)).toBeUndefined();
    const numbers = JSON.stringify({ numbers: [1, 2, 3] }, null, 2);
    expect(laidOutJson(numbers, 40)).toBe(await prettier(numbers));
    expect(
      laidOutJson(JSON.stringify({ numbers: Array.from({ length: 20 }, (_, n) => n) }, null, 2), 40),
    ).toBeUndefined();
    expect(laidOutJson('{ "printWidth": 120 }\n', 40)).toBeUndefined();
    expect(laidOutJson('// a comment\n{ "a": 1 }\n', 40)).toBeUndefined();
  });
});

describe("compact JSON with text beyond ASCII", () => {
  it("breaks what holds it, which prettier keeps broken whatever it counts its width", async () => {
    const value = { tags: { name: "notes", description: "メモ、備考" }, short: { a: "é" } };
    const text = compactJson(value, 40)!;
    expect(text).toBe(await prettier(text));
    expect(text).toContain('"description": "メモ、備考"\n');
  });
});
