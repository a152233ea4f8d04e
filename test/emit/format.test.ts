import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { previousOutput, writeOutput } from "../../src/cli/writer.ts";
import { LARGE, formatFile, formatTree, type EmittedFile } from "../../src/emit/format.ts";
import { OWNED_FILES, parseOwnedListing, textHash } from "../../src/tree/file-tree.ts";

// Every generated file goes through the formatter once; a later generation keeps a file whose
// source and written content are unchanged instead of formatting it again.

const formatter = { options: { printWidth: 120 }, version: "0.78.0" };
const files = (entries: [string, string][]): EmittedFile[] => entries.map(([path, text]) => ({ path, text }));
const scratch = mkdtempSync(join(tmpdir(), "tablegen-format-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("formatTree", () => {
  it("lays out TypeScript, JSON and Markdown, and leaves other files and copied ones as they are", async () => {
    const tree = await formatTree(
      [
        ...files([
          ["c.md", "# Title\n\n\n\ntext\n"],
          ["a.ts", "const  a = {x:1}\n"],
          ["b.json", '{"a":[1,2]}'],
          ["d.sql", "SELECT  1;\n"],
        ]),
        { path: "e.ts", text: "const  e = 1\n", copied: true },
      ],
      formatter,
    );
    expect([...tree.entries()].filter(([path]) => path !== OWNED_FILES)).toEqual([
      ["a.ts", "const a = { x: 1 };\n"],
      ["b.json", '{ "a": [1, 2] }\n'],
      ["c.md", "# Title\n\ntext\n"],
      ["d.sql", "SELECT  1;\n"],
      ["e.ts", "const  e = 1\n"],
    ]);
    expect(parseOwnedListing(tree.get(OWNED_FILES)!).map(({ path }) => path)).toEqual([
      "a.ts",
      "b.json",
      "c.md",
      "d.sql",
      "e.ts",
    ]);
  });

  it("names the file a template wrote in a form the formatter cannot read", async () => {
    await expect(formatTree(files([["src/broken.ts", "const a = {\n"]]), formatter)).rejects.toThrow(
      /^tablegen wrote src\/broken\.ts in a form the formatter cannot read: /,
    );
  });

  it("lays out large files (a large project's OpenAPI documents) as the others, one after another beside them", async () => {
    const large = (name: string) =>
      JSON.stringify({ name, items: Array.from({ length: LARGE / 20 }, (_, id) => ({ id, name })) });
    const [first, second] = [large("first"), large("second")];
    expect(Math.min(first.length, second.length)).toBeGreaterThan(LARGE);
    const source = files([
      ["openapi/v1.json", first],
      ["openapi/v2.json", second],
      ["a.ts", "const  a = 1\n"],
      ["b.ts", "const  b = 2\n"],
    ]);
    const tree = await formatTree(source, formatter);
    expect(tree.get("openapi/v1.json")).toBe(await formatFile("openapi/v1.json", first, formatter.options));
    expect(tree.get("openapi/v2.json")).toBe(await formatFile("openapi/v2.json", second, formatter.options));
    expect(tree.get("a.ts")).toBe("const a = 1;\n");
    expect(tree.get("b.ts")).toBe("const b = 2;\n");
    expect(parseOwnedListing(tree.get(OWNED_FILES)!).map(({ path }) => path)).toEqual([
      "a.ts",
      "b.ts",
      "openapi/v1.json",
      "openapi/v2.json",
    ]);
  });

  it("names a large file the formatter cannot read, after the others are laid out", async () => {
    const broken = `{"a": [${"1,".repeat(LARGE)}`;
    await expect(
      formatTree(
        files([
          ["openapi/v1.json", broken],
          ["a.ts", "const  a = 1\n"],
        ]),
        formatter,
      ),
    ).rejects.toThrow(/^tablegen wrote openapi\/v1\.json in a form the formatter cannot read: /);
  });

  it("keeps what the previous generation wrote from the same source, and reformats what was edited since", async () => {
    const dir = join(scratch, "reuse");
    const source = files([
      ["same.ts", "export const  same = 1\n"],
      ["edited.ts", "export const  edited = 2\n"],
    ]);
    writeOutput(dir, { generated: await formatTree(source, formatter) });
    // An edited file no longer matches the hash its listing recorded: it is formatted again.
    writeFileSync(join(dir, "edited.ts"), "// edited by hand\n");
    const reused: string[] = [];
    const reuse = previousOutput(dir);
    const again = await formatTree(source, formatter, (path, hash) => {
      const content = reuse(path, hash);
      if (content !== undefined) reused.push(path);
      return content;
    });
    expect(reused).toEqual(["same.ts"]);
    expect(again.get("edited.ts")).toBe("export const edited = 2;\n");
    expect(again.get("same.ts")).toBe("export const same = 1;\n");
  });

  it("hashes a text's UTF-8 bytes as the listings of earlier versions did, whatever characters it holds", () => {
    for (const text of ["", "plain", "naïve — 名前 🙂", "a lone \ud800 surrogate", "x".repeat(100_000)]) {
      expect(textHash(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16));
    }
  });

  it("formats again when the formatter's version or configuration changes", async () => {
    const dir = join(scratch, "config");
    const source = files([["a.ts", "export const a = 1;\n"]]);
    writeOutput(dir, { generated: await formatTree(source, formatter) });
    const reuse = previousOutput(dir);
    const asked: (string | undefined)[] = [];
    const track = (path: string, hash: string) => {
      const content = reuse(path, hash);
      asked.push(content);
      return content;
    };
    await formatTree(source, formatter, track);
    await formatTree(source, { ...formatter, version: "0.79.0" }, track);
    await formatTree(source, { ...formatter, options: { printWidth: 80 } }, track);
    expect(asked).toEqual(["export const a = 1;\n", undefined, undefined]);
  });
});
