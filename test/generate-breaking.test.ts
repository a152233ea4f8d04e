import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchDir } from "./helpers/generate.ts";
import { tablegen as inProcess } from "./migrate/scenario.ts";

// `tablegen generate`'s breaking-change guard through the CLI (its entry, in this process): a published version's document
// (openapi/<version>.json) may only grow; a break is refused, listed, until --allow-breaking.
// Each kind of break and its line are covered by test/emit/breaking.test.ts.

const tablegen = (args: string[], cwd: string) => inProcess(args, cwd, {});

const PUBLISHED = `project: shop
tables:
  notes:
    fields:
      title: { type: TEXT, required: true, maxLength: 100 }
`;

describe("tablegen generate's breaking-change guard", () => {
  it("passes additive changes, refuses breaks to published versions listing each, until --allow-breaking", async () => {
    const dir = await scratchDir("cli-breaking");
    const manifest = (text: string) => writeFile(join(dir, "tablegen.yaml"), text);
    const server = join(dir, "server");
    const document = (version: string) => readFile(join(server, `openapi/${version}.json`), "utf8");

    // A first generation has nothing published; a new version and a new optional field break nothing.
    await manifest(PUBLISHED);
    expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
    const grown = PUBLISHED.replace("tables:", "versions: [v1, v2]\ntables:") + "      body: PARAGRAPH\n";
    await manifest(grown);
    const additive = await tablegen(["generate"], dir);
    expect(additive.exitCode, additive.stderr).toBe(0);
    const [v1, v2, schemas] = [await document("v1"), await document("v2"), join(server, "src/schemas/notes.ts")];
    const schemasBefore = await readFile(schemas, "utf8");

    // A narrower maxLength breaks both versions: refused, every break listed, nothing written.
    await manifest(grown.replace("maxLength: 100", "maxLength: 50"));
    const refused = await tablegen(["generate"], dir);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      [
        "tablegen: tablegen.yaml breaks published versions of the API (4 breaks), so nothing was written:",
        '  v1: schema NotesCreate: field "title" narrowed maxLength from 100 to 50',
        '  v1: schema NotesUpdate: field "title" narrowed maxLength from 100 to 50',
        '  v2: schema NotesCreate: field "title" narrowed maxLength from 100 to 50',
        '  v2: schema NotesUpdate: field "title" narrowed maxLength from 100 to 50',
        "A published version (server/openapi/<version>.json) may only grow: make the change in a new version, " +
          "or run again with --allow-breaking v1,v2 to accept it on purpose.",
      ].join("\n"),
    );
    expect([await document("v1"), await document("v2"), await readFile(schemas, "utf8")]).toEqual([
      v1,
      v2,
      schemasBefore,
    ]);

    // --check reports the same breaks, beside the files that differ.
    const check = await tablegen(["generate", "--check"], dir);
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(
      "  differs openapi/v2.json\n" +
        "  differs src/schemas/notes.ts\n" +
        "The changes break published versions of the API (4 breaks):\n" +
        '  v1: schema NotesCreate: field "title" narrowed maxLength from 100 to 50\n',
    );
    expect(check.stdout).toMatch(/or run "tablegen generate --allow-breaking v1,v2" to accept the breaks on purpose.$/);

    // Accepting one version leaves the other's breaks refused; accepting both writes.
    const partly = await tablegen(["generate", "--allow-breaking", "v1"], dir);
    expect(partly.exitCode).toBe(1);
    expect(partly.stderr).toMatch(/^tablegen: tablegen.yaml breaks published versions of the API \(2 breaks\)/);
    expect(partly.stderr).not.toContain("  v1:");
    expect(partly.stderr).toContain("--allow-breaking v2 to accept it on purpose.");
    const accepted = await tablegen(["generate", "--allow-breaking", "v1,v2"], dir);
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(JSON.parse(await document("v1")).components.schemas.NotesCreate.properties.title.maxLength).toBe(50);
    expect((await tablegen(["generate", "--check"], dir)).exitCode).toBe(0);

    // A removed version is a break; a published document that is not one is named, and can be replaced.
    await manifest(grown.replace("maxLength: 100", "maxLength: 50").replace("[v1, v2]", "[v1]"));
    await writeFile(join(server, "openapi/v1.json"), "{ not json");
    const [removed, garbage, label] = await Promise.all([
      tablegen(["generate", "--allow-breaking", "v1"], dir),
      tablegen(["generate", "--allow-breaking", "v2"], dir),
      tablegen(["generate", "--allow-breaking", "2"], dir),
    ]);
    expect(removed.stderr).toBe(
      [
        "tablegen: tablegen.yaml breaks published versions of the API (1 break), so nothing was written:",
        "  v2: version removed: the manifest no longer has it",
        "A published version (server/openapi/<version>.json) may only grow: make the change in a new version, " +
          "or run again with --allow-breaking v2 to accept it on purpose.",
      ].join("\n"),
    );
    expect(garbage.stderr).toMatch(
      /^tablegen: server\/openapi\/v1.json: not valid JSON \(.+\); generate compares v1 with it. Restore it \(from version control\), or run again with --allow-breaking v1 to replace it. Nothing was written.$/,
    );
    expect(label.stderr).toBe(
      'tablegen: --allow-breaking: "2" is not a version label (v<number>, as in the manifest\'s versions)',
    );
    expect([removed.exitCode, garbage.exitCode, label.exitCode]).toEqual([1, 1, 1]);
    const replaced = await tablegen(["generate", "--allow-breaking", "v2", "--allow-breaking", "v1"], dir);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain("1 removed (openapi/v2.json)");
    expect(JSON.parse(await document("v1")).info.version).toBe("v1");
  });
});
