import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { check } from "prettier";
import { describe, expect, it } from "vitest";
import { withOwnedList } from "../src/tree/file-tree.ts";
import { REPO, exampleTree } from "./helpers/generate.ts";

// The generated tree of every example is kept under test/golden/<example>/ as real files.
// Refresh them with `npm run golden:update` (vitest -u), which also removes orphaned ones.
const GOLDEN = join(REPO, "test", "golden");
const updating = process.env.GOLDEN_UPDATE === "1";
const examples = (await readdir(join(REPO, "examples"))).filter((file) => file.endsWith(".yaml")).map((file) => file.slice(0, -5));

async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe.each(examples)("golden files of examples/%s.yaml", (example) => {
  it("match the generated tree file by file", async () => {
    const tree = withOwnedList((await exampleTree(example)).tree);
    for (const [path, content] of tree) {
      await expect(content, path).toMatchFileSnapshot(join(GOLDEN, example, path));
    }
  });

  it("has no file the generator no longer produces", async () => {
    const tree = withOwnedList((await exampleTree(example)).tree);
    const orphans = (await filesUnder(join(GOLDEN, example))).filter((path) => !tree.has(path));
    if (updating) for (const path of orphans) await rm(join(GOLDEN, example, path));
    else expect(orphans, "orphaned golden files: run npm run golden:update").toEqual([]);
  });

  it("is formatted: prettier leaves every TypeScript and JSON file as it is", async () => {
    const { tree } = await exampleTree(example);
    const unformatted: string[] = [];
    for (const [path, content] of tree) {
      if (/\.(ts|json)$/.test(path) && !(await check(content, { filepath: path, printWidth: 120 }))) unformatted.push(path);
    }
    expect(unformatted).toEqual([]);
  });

  it("is byte-identical when generated twice", async () => {
    const first = (await exampleTree(example)).tree;
    const second = (await exampleTree(example)).tree;
    expect([...second]).toEqual([...first]);
  });
});
