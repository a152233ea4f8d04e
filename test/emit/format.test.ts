import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { previousOutput, writeOutput } from "../../src/cli/writer.ts";
import { formatTree } from "../../src/emit/format.ts";
import { OWNED_FILES, fileTree, parseOwnedListing } from "../../src/tree/file-tree.ts";

// Every generated file goes through prettier once; a later generation keeps a file whose source and
// written content are unchanged instead of formatting it again.

const formatter = { config: { printWidth: 120 }, version: "3" };
const scratch = mkdtempSync(join(tmpdir(), "tablegen-format-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("formatTree", () => {
  it("lays out TypeScript, JSON and Markdown with prettier, and leaves other files as they are", async () => {
    const tree = await formatTree(
      fileTree([
        ["a.ts", "const  a = {x:1}\n"],
        ["b.json", '{"a":[1,2]}'],
        ["c.md", "# Title\n\n\n\ntext\n"],
        ["d.sql", "SELECT  1;\n"],
      ]),
      formatter,
    );
    expect([...tree.entries()].filter(([path]) => path !== OWNED_FILES)).toEqual([
      ["a.ts", "const a = { x: 1 };\n"],
      ["b.json", '{ "a": [1, 2] }\n'],
      ["c.md", "# Title\n\ntext\n"],
      ["d.sql", "SELECT  1;\n"],
    ]);
    expect(parseOwnedListing(tree.get(OWNED_FILES)!).map(({ path }) => path)).toEqual([
      "a.ts",
      "b.json",
      "c.md",
      "d.sql",
    ]);
  });

  it("keeps what the previous generation wrote from the same source, and reformats what was edited since", async () => {
    const dir = join(scratch, "reuse");
    const source = fileTree([
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

  it("formats again when prettier's version or configuration changes", async () => {
    const dir = join(scratch, "config");
    const source = fileTree([["a.ts", "export const a = 1;\n"]]);
    writeOutput(dir, { generated: await formatTree(source, formatter) });
    const reuse = previousOutput(dir);
    const asked: (string | undefined)[] = [];
    const track = (path: string, hash: string) => {
      const content = reuse(path, hash);
      asked.push(content);
      return content;
    };
    await formatTree(source, formatter, track);
    await formatTree(source, { ...formatter, version: "4" }, track);
    await formatTree(source, { config: { printWidth: 80 }, version: "3" }, track);
    expect(asked).toEqual(["export const a = 1;\n", undefined, undefined]);
  });
});
