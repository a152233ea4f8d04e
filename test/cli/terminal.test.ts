import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { runOnTerminal } from "../helpers/terminal.ts";

// The prompts a person sees on a terminal (inquirer), answered through a real pseudo-terminal.

const TABLEGEN = [process.execPath, join(REPO, "bin/tablegen.js")];
const ENTER = "\r";

describe("on a terminal", () => {
  it("init asks for the project name, the database and the example", async () => {
    const dir = await scratchDir("init-terminal");
    const run = await runOnTerminal([...TABLEGEN, "init"], dir, [
      ["Project name", "library" + ENTER],
      ["Database", ENTER],
      ["Start from the example", "n" + ENTER],
    ]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain("Wrote tablegen.yaml, .env");
    const manifest = await readFile(join(dir, "tablegen.yaml"), "utf8");
    expect(manifest).toContain("project: library");
    expect(manifest).toContain("database: sqlite");
    expect(manifest).toContain("  items:");
  });

  it("migrate asks before losing data, and a no changes nothing", async () => {
    const dir = await scratchDir("migrate-terminal");
    const manifest = "project: shop\ntables:\n  items:\n    fields:\n      name: TEXT\n      note: TEXT\n";
    await writeFile(join(dir, "tablegen.yaml"), manifest);
    const cli = (args: string[]) => execa(TABLEGEN[0]!, [TABLEGEN[1]!, ...args], { cwd: dir });
    await cli(["generate"]);
    await cli(["migrate"]);
    await execa(
      "node",
      [
        "-e",
        "new (require('better-sqlite3'))('server/data.db').exec(\"INSERT INTO items (name, note) VALUES ('a', 'keep me')\")",
      ],
      { cwd: dir },
    );
    await writeFile(join(dir, "tablegen.yaml"), manifest.replace("      note: TEXT\n", ""));
    await cli(["generate", "--allow-breaking", "v1"]);
    const migrations = await readdir(join(dir, "server/prisma/migrations"));

    const declined = await runOnTerminal([...TABLEGEN, "migrate"], dir, [["Apply it anyway?", "n" + ENTER]]);
    expect(declined.exitCode).toBe(1);
    expect(declined.output).toContain("items.note: field removed, 1 row holds a value");
    expect(declined.output).toContain("tablegen: migrate cancelled: nothing was written or changed");
    expect(await readdir(join(dir, "server/prisma/migrations"))).toEqual(migrations);

    const accepted = await runOnTerminal([...TABLEGEN, "migrate"], dir, [["Apply it anyway?", "y" + ENTER]]);
    expect(accepted.exitCode, accepted.output).toBe(0);
    expect(accepted.output).toContain("items.note: field removed");
    expect(accepted.output).toContain("Applied pending migrations");
    expect(existsSync(join(dir, "server/data.db"))).toBe(true);
  });
});
