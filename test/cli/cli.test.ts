import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Runs the real CLI in a child process, from the repository root, as a command of its own (not under
 * npx, whatever ran the tests: `npx vitest` leaves npm's variables to its children).
 */
function tablegen(...args: string[]) {
  return execa(process.execPath, ["bin/tablegen.js", ...args], { reject: false, cwd: root, env: NOT_NPX });
}

const NOT_NPX = { NO_COLOR: "1", npm_command: "", npm_lifecycle_event: "" };

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
    for (const command of ["init", "ai", "generate", "migrate", "keys"])
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

  it("warns of a version whose sunset has passed, and still generates and migrates (issue 25)", async ({ expect }) => {
    const manifest = join(dir, "sunset.yaml");
    await writeFile(
      manifest,
      "project: shop\nversions:\n  v1: { deprecated: 2019-06-01, sunset: 2020-01-01 }\n  v2: {}\ntables:\n  notes:\n    fields:\n      text: TEXT\n",
    );
    const out = join(dir, "sunset-server");
    const warning = `Warning: ${manifest}:3:41 versions.v1.sunset: 2020-01-01 has passed: every request to v1 is answered 410 Gone`;
    const generated = await tablegen("generate", "--manifest", manifest, "--out", out);
    expect(generated.exitCode, generated.stderr).toBe(0);
    expect(generated.stdout).toMatch(/^Generated /);
    expect(generated.stderr.split("\n")[0]).toBe(warning);
    const [checked, migrated] = await Promise.all([
      tablegen("generate", "--check", "--manifest", manifest, "--out", out),
      tablegen("migrate", "--create-only", "--manifest", manifest, "--out", out),
    ]);
    expect(checked.exitCode).toBe(0);
    expect(checked.stderr).toBe(warning);
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    expect(migrated.stdout.split("\n")[0]).toBe(warning);
  });

  it("reports a custom query's misspelt column with the manifest's other problems, in one run (issue 25)", async ({
    expect,
  }) => {
    const manifest = (database: string) =>
      [
        "project: clinic",
        `database: ${database}`,
        "tables:",
        "  patients:",
        "    fields:",
        "      name: { type: TEXT, required: true }",
        "      born: DATETIME",
        "  visits:",
        "    fields:",
        "      patient_id: { type: NUMBER, references: patients }",
        "      notes: STRNG",
        "      at: DATETIME",
        "queries:",
        "  by_name:",
        "    sql: SELECT id, nmae FROM patients",
        "  notes_of:",
        "    params: { patient: NUMBER }",
        "    sql: SELECT notes FROM visits WHERE patient_id = :patient",
        "  sound:",
        "    sql: SELECT id, name FROM patients",
        "",
      ].join("\n");
    const results = await Promise.all(
      ["sqlite", "postgresql"].map(async (database) => {
        const file = join(dir, `rounds-${database}.yaml`);
        await writeFile(file, manifest(database));
        return {
          file,
          result: await tablegen("generate", "--manifest", file, "--out", join(dir, `rounds-${database}`)),
        };
      }),
    );
    const [sqlite, postgresql] = results;
    // The query on visits, whose notes field has a problem, is not judged: its column is not known.
    expect(sqlite!.result.exitCode).toBe(1);
    expect(sqlite!.result.stderr).toBe(
      [
        `tablegen: ${sqlite!.file}: 2 problems:`,
        `  ${sqlite!.file}:11:14 tables.visits.fields.notes: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)`,
        `  ${sqlite!.file}:15:10 queries.by_name.sql: no such column: nmae`,
      ].join("\n"),
    );
    expect(postgresql!.result.exitCode).toBe(1);
    expect(postgresql!.result.stderr).toBe(
      [
        `tablegen: ${postgresql!.file}: 2 problems:`,
        `  ${postgresql!.file}:11:14 tables.visits.fields.notes: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)`,
        `  ${postgresql!.file}:15:10 queries.by_name.sql: column "nmae" does not exist`,
      ].join("\n"),
    );
  });

  it("writes English that fits any table name: no article or plural before it (issue 25)", async ({ expect }) => {
    const manifest = join(dir, "clinic.yaml");
    await writeFile(
      manifest,
      "project: clinic\ntables:\n  appointments:\n    fields:\n      at: { type: DATETIME, required: true }\n  staff:\n    fields:\n      name: TEXT\n",
    );
    const out = join(dir, "clinic-server");
    const result = await tablegen("generate", "--manifest", manifest, "--out", out);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = JSON.parse(await readFile(join(out, "openapi", "v1.json"), "utf8")) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const summaries = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.summary));
    expect(summaries).toEqual([
      "List the records in appointments",
      "Get a record from appointments",
      "Create a record in appointments",
      "Update a record in appointments",
      "Delete a record from appointments",
      "List the records in staff",
      "Get a record from staff",
      "Create a record in staff",
      "Update a record in staff",
      "Delete a record from staff",
      "Run creates, updates and deletes in one transaction",
      "The OpenAPI document of v1",
    ]);
    const schemas = await readFile(join(out, "src", "schemas", "appointments.ts"), "utf8");
    expect(schemas).toContain("/** A record in appointments, as the API returns it. */");
    expect(schemas).toContain(
      "/** The fields a create in appointments takes; an update takes any non-empty subset. */",
    );
    const readme = await readFile(join(out, "README.md"), "utf8");
    expect(readme).toContain("// data.data: the records in appointments, typed; error: the failure envelope.");
    const generatedText = [JSON.stringify(document), schemas, readme].join("\n");
    expect(generatedText).not.toMatch(/\ba (appointments|staff)\b|\b(appointments|staff) records?\b/);
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

  it("says npx tablegen in its Next line when run through npx or npm exec (issue 25)", async ({ expect }) => {
    // A project with tablegen installed in it, run as its README says: `npx tablegen`.
    const project = join(dir, "npx-project");
    await mkdir(join(project, "node_modules", ".bin"), { recursive: true });
    await writeFile(join(project, "package.json"), '{ "name": "npx-project", "private": true }\n');
    await symlink(join(root, "bin", "tablegen.js"), join(project, "node_modules", ".bin", "tablegen"));
    // Only the machine's PATH, HOME and TMPDIR: npm's variables come from npx itself, not from the test run.
    const machine = ["PATH", "HOME", "TMPDIR"].flatMap((name) =>
      process.env[name] ? [[name, process.env[name]!]] : [],
    );
    const env = { ...Object.fromEntries(machine), NO_COLOR: "1", npm_config_update_notifier: "false" };
    const run = (command: string, args: string[]) =>
      execa(command, args, { cwd: project, env, extendEnv: false, reject: false });
    const [npx, exec] = await Promise.all([
      run("npx", ["tablegen", "init", "shop", "--yes"]),
      run("npm", ["exec", "--", "tablegen", "init", "clinic", "--yes"]),
    ]);
    expect(npx.exitCode, npx.stderr).toBe(0);
    expect(npx.stdout.split("\n").at(-1)).toBe(
      "Next: cd shop && npx tablegen generate && npx tablegen migrate && cd server && npm install && npm start",
    );
    expect(exec.exitCode, exec.stderr).toBe(0);
    expect(exec.stdout.split("\n").at(-1)).toBe(
      "Next: cd clinic && npx tablegen generate && npx tablegen migrate && cd server && npm install && npm start",
    );
  });

  it("fails at once, exit 1, for a directory that cannot be made (issue 16)", async ({ expect }) => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    // Node's recursive mkdir never returned for /proc/nope: a run that hangs is ended by the test run's backstop.
    const run = (args: string[], env: Record<string, string> = {}) =>
      execa(process.execPath, ["bin/tablegen.js", ...args], {
        reject: false,
        cwd: root,
        env: { ...NOT_NPX, ...env },
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
        env: { ...NOT_NPX, OPENAI_API_KEY: "" },
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
