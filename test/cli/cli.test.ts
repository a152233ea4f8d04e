import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Runs the real CLI in a child process, from the repository root. */
function tablegen(...args: string[]) {
  return execa(process.execPath, ["bin/tablegen.js", ...args], { reject: false, cwd: root, env: { NO_COLOR: "1" } });
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tablegen-cli-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const INVALID = [
  "project: Blog",
  "tables:",
  "  posts:",
  "    fields:",
  "      title: STRNG",
  "      user_id: { type: NUMBER, references: users }",
  "",
].join("\n");

// Each child process costs about half a second: the tests run concurrently.
describe.concurrent("the tablegen command", () => {
  it("prints its help and exits 0 with --help", async ({ expect }) => {
    const result = await tablegen("--help");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: tablegen \[options\] \[command\]/);
    for (const command of ["init", "ai", "generate", "migrate"])
      expect(result.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    expect(result.stderr).toBe("");
  });

  it("prints each subcommand's flags with --help", async ({ expect }) => {
    const flags: Record<string, string[]> = {
      init: ["[dir]", "--name <name>", "--db <database>", "--ai <prompt>", "-y, --yes", "--force"],
      ai: ["<prompt>", "--out <file>", "-y, --yes"],
      generate: ["--manifest <file>", "--out <dir>", "--check", "--allow-breaking <vN>"],
      migrate: ["--manifest <file>", "--out <dir>", "--name <label>", "--create-only", "--accept-data-loss"],
    };
    const results = await Promise.all(Object.keys(flags).map((command) => tablegen(command, "--help")));
    Object.entries(flags).forEach(([command, expected], index) => {
      const result = results[index]!;
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(`Usage: tablegen ${command} [options]`);
      for (const flag of expected) expect(result.stdout).toContain(flag);
    });
    expect(results[2]!.stdout).toContain('manifest to read (default: "tablegen.yaml")');
    expect(results[2]!.stdout).toContain('directory of the generated server (default: "server")');
  });

  it("exits 1 with one line for an unknown command or option", async ({ expect }) => {
    const [command, option] = await Promise.all([tablegen("frobnicate"), tablegen("generate", "--frob")]);
    expect(command.exitCode).toBe(1);
    expect(command.stderr).toBe("tablegen: unknown command 'frobnicate'\n(add --help for usage)");
    expect(option.exitCode).toBe(1);
    expect(option.stderr).toBe("tablegen: unknown option '--frob'\n(add --help for usage)");
  });

  it("exits 1 listing every located problem of an invalid manifest, without a stack trace", async ({ expect }) => {
    const manifest = join(dir, "invalid.yaml");
    await writeFile(manifest, INVALID);
    const result = await tablegen("generate", "--manifest", manifest, "--out", join(dir, "server"));
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      [
        `tablegen: ${manifest}: 3 problems:`,
        `  ${manifest}:1:10 project: "Blog" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most`,
        `  ${manifest}:5:14 tables.posts.fields.title: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)`,
        `  ${manifest}:6:44 tables.posts.fields.user_id.references: refers to a table that does not exist: "users"`,
      ].join("\n"),
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it("shows the stack trace with --debug", async ({ expect }) => {
    const manifest = join(dir, "invalid-debug.yaml");
    await writeFile(manifest, INVALID);
    const result = await tablegen("generate", "--manifest", manifest, "--out", join(dir, "server"), "--debug");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('unknown type "STRNG"');
    expect(result.stderr).toMatch(/^\s+at .*validate\.ts/m);
  });

  it("exits 1 with a clear message when the manifest is missing", async ({ expect }) => {
    const manifest = join(dir, "missing", "tablegen.yaml");
    const result = await tablegen("generate", "--manifest", manifest);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`tablegen: ${manifest}: manifest not found (run "tablegen init" to create one)`);
  });

  it("scaffolds a project with init --yes", async ({ expect }) => {
    const target = join(dir, "shop");
    const result = await tablegen("init", target, "--yes");
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      [
        `Wrote ${join(target, "tablegen.yaml")}, ${join(target, ".env")}, ${join(target, ".gitignore")}`,
        `Next: cd ${target} && tablegen generate && tablegen migrate && cd server && npm install && npm start`,
      ].join("\n"),
    );
    expect(await readFile(join(target, "tablegen.yaml"), "utf8")).toMatch(/^project: shop$/m);
    expect(await readFile(join(target, ".env"), "utf8")).toMatch(/^API_SIGNATURE_KEY=[A-Za-z0-9_-]{43}$/m);
  });

  it("fails at once, exit 1, for a directory that cannot be made (issue 16)", async ({ expect }) => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    // Node's recursive mkdir never returned for /proc/nope: a run that hangs is ended by the test run's backstop.
    const run = (args: string[], env: Record<string, string> = {}) =>
      execa(process.execPath, ["bin/tablegen.js", ...args], {
        reject: false,
        cwd: root,
        env: { NO_COLOR: "1", ...env },
      });
    const model = { OPENAI_API_KEY: "test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
    const [proc, underFile, isFile, generate, ai] = await Promise.all([
      run(["init", "/proc/nope", "--yes"]),
      run(["init", join(file, "sub"), "--yes"]),
      run(["init", file, "--yes"]),
      run(["generate", "--manifest", "examples/tasks.yaml", "--out", "/proc/nope/server"]),
      // Refused before the model is asked (nothing listens on port 9).
      run(["ai", "a library", "--out", "/proc/nope/tablegen.yaml"], model),
    ]);
    const results = [proc, underFile, isFile, generate, ai];
    expect(results.map((result) => result.timedOut)).toEqual([false, false, false, false, false]);
    expect(results.map((result) => result.exitCode)).toEqual([1, 1, 1, 1, 1]);
    expect(results.map((result) => result.stderr)).toEqual([
      "tablegen: cannot create directory /proc/nope: no such file or directory (ENOENT)",
      `tablegen: cannot create directory ${join(file, "sub")}: ${file} is not a directory`,
      `tablegen: cannot create directory ${file}: it is a file, not a directory`,
      "tablegen: cannot create directory /proc/nope/server: no such file or directory (ENOENT)",
      "tablegen: cannot create directory /proc/nope: no such file or directory (ENOENT)",
    ]);
  });

  it("says ai needs an API key, and migrate needs a manifest and a generated server", async ({ expect }) => {
    const [ai, noManifest, noServer] = await Promise.all([
      execa(process.execPath, ["bin/tablegen.js", "ai", "a library"], {
        reject: false,
        cwd: root,
        env: { NO_COLOR: "1", OPENAI_API_KEY: "" },
      }),
      tablegen("migrate", "--manifest", join(dir, "none.yaml")),
      tablegen("migrate", "--manifest", join(root, "examples/tasks.yaml"), "--out", join(dir, "nowhere")),
    ]);
    expect(ai.exitCode).toBe(1);
    expect(ai.stderr).toBe(
      "tablegen: OPENAI_API_KEY is not set: the AI generator needs an API key (OPENAI_BASE_URL points it at any OpenAI-compatible server)",
    );
    expect(noManifest.exitCode).toBe(1);
    expect(noManifest.stderr).toBe(
      `tablegen: ${join(dir, "none.yaml")}: manifest not found (run "tablegen init" to create one)`,
    );
    expect(noServer.exitCode).toBe(1);
    expect(noServer.stderr).toMatch(/^tablegen: .*nowhere: no generated server here; run "tablegen generate" first$/);
  });
});
