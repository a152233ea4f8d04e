import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, it } from "vitest";
import { tablegen as run } from "../helpers/command.ts";
import { scratchDir } from "../helpers/generate.ts";

// `tablegen keys new | list | revoke` (issue 29), the CLI's own entry run in this process (the
// binary is tested by test/cli/cli.test.ts), each on a project directory of its own: the blog
// example's manifest beside a .env as `tablegen init` writes it.

const root = fileURLToPath(new URL("../..", import.meta.url));
const BLOG = join(root, "examples", "blog.yaml");
const ENV = '# written by tablegen init\nAPI_SIGNATURE_KEY=main-key\nDATABASE_URL="file:./data.db"\n';
const sha256 = (secret: string) => createHash("sha256").update(secret).digest("hex");
const HASH = sha256("anything");

let base: string;

beforeAll(async () => {
  base = await scratchDir("keys-cli");
});

let projects = 0;
/** A project directory: tablegen.yaml (the blog example) and a .env (or the one given). */
async function project(env: string | null = ENV): Promise<string> {
  const dir = join(base, `project-${++projects}`);
  await mkdir(dir);
  await copyFile(BLOG, join(dir, "tablegen.yaml"));
  if (env !== null) await writeFile(join(dir, ".env"), env, { mode: 0o600 });
  return dir;
}

/** `tablegen keys <args>` in a project directory, by the CLI's own entry in this process (test/helpers/command.ts). */
const tablegen = (cwd: string, ...args: string[]) => run(["keys", ...args], cwd, { NO_COLOR: "1" });

const envOf = (dir: string) => readFile(join(dir, ".env"), "utf8");

describe.concurrent("tablegen keys", () => {
  it("new: adds the key's hash to the .env, prints the secret once on stdout, and says so on stderr", async ({
    expect,
  }) => {
    const dir = await project();
    const result = await tablegen(
      dir,
      "new",
      "mobile_app",
      "--scope",
      "posts:read, comments@v2:write",
      "--limit",
      "100/minute",
    );
    expect(result.exitCode).toBe(0);
    const secret = result.stdout;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.stderr).toBe(
      [
        "Added the key mobile_app to .env (API_KEY_MOBILE_APP): scope posts:read,comments@v2:write, limit 100/min, never expires.",
        "Its secret, shown this once (clients send it in X-API-SIGNATURE; the file keeps its hash only):",
        "Restart the server to use it.",
      ].join("\n"),
    );
    expect(await envOf(dir)).toBe(
      `${ENV}API_KEY_MOBILE_APP="sha256:${sha256(secret)};scope=posts:read,comments@v2:write;limit=100/min"\n`,
    );
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o600);

    // A second key gets another secret; list shows both, without a secret or a hash.
    const second = await tablegen(dir, "new", "admin", "--scope", "*:write", "--expires", "2099-06-30");
    expect(second.exitCode).toBe(0);
    expect(second.stdout).not.toBe(secret);
    const list = await tablegen(dir, "list");
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toBe(
      [
        "name        scope                         limit    expires",
        "mobile_app  posts:read,comments@v2:write  100/min  never",
        "admin       *:write                       none     2099-06-30T00:00:00Z",
      ].join("\n"),
    );
    expect(list.stderr).toBe("");
    for (const hidden of [secret, second.stdout, sha256(secret)]) expect(list.stdout).not.toContain(hidden);
  });

  it("new --expires: a duration from now, in whole seconds", async ({ expect }) => {
    const dir = await project();
    const before = Math.floor(Date.now() / 1000) * 1000;
    const result = await tablegen(dir, "new", "temp", "--scope", "*:read", "--expires", "90d");
    expect(result.exitCode).toBe(0);
    const expires = /expires=([^;"]+)/.exec(await envOf(dir))![1]!;
    expect(expires).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const ms = Date.parse(expires) - before;
    expect(ms).toBeGreaterThanOrEqual(90 * 86_400_000);
    expect(ms).toBeLessThan(90 * 86_400_000 + 60_000);
    expect(result.stderr).toContain(`scope *:read, no limit, expires ${expires}.`);
  });

  it("new and list with --manifest: the .env beside that manifest, made when missing", async ({ expect }) => {
    const dir = await project(null);
    const elsewhere = join(base, `elsewhere-${projects}`);
    await mkdir(elsewhere);
    const result = await tablegen(
      elsewhere,
      "new",
      "web",
      "--scope",
      "category_posts:read",
      "--manifest",
      join(dir, "tablegen.yaml"),
    );
    expect(result.exitCode).toBe(0);
    expect(await envOf(dir)).toBe(`API_KEY_WEB="sha256:${sha256(result.stdout)};scope=category_posts:read"\n`);
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o600);
    const list = await tablegen(elsewhere, "list", "--manifest", join(dir, "tablegen.yaml"));
    expect(list.stdout).toContain("web   category_posts:read  none   never");
  });

  it("list: says there are none", async ({ expect }) => {
    const dir = await project();
    const result = await tablegen(dir, "list");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(".env has no keys: API_SIGNATURE_KEY alone, with full access.");
  });

  it("list: marks an expired key, and warns of one the manifest's API no longer has", async ({ expect }) => {
    const dir = await project(
      `${ENV}API_KEY_OLD="sha256:${HASH};scope=*:read;expires=2020-01-01T00:00:00Z"\n` +
        `API_KEY_GONE=sha256:${sha256("gone")};scope=drafts:read,posts@v7:read\n`,
    );
    const result = await tablegen(dir, "list");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      [
        "name  scope                      limit  expires",
        "old   *:read                     none   2020-01-01T00:00:00Z (expired)",
        "gone  drafts:read,posts@v7:read  none   never",
      ].join("\n"),
    );
    expect(result.stderr).toBe(
      'warning: .env:5 API_KEY_GONE: scope entry "drafts:read": drafts is no table or query of blog; ' +
        'scope entry "posts@v7:read": v7 is no version of blog (v1, v2): the server will not start with it',
    );
  });

  it("revoke: removes the key's line and nothing else", async ({ expect }) => {
    const dir = await project(
      `${ENV}API_KEY_WEB="sha256:${HASH};scope=*:read"\n# the app\nAPI_KEY_APP=sha256:${sha256("app")};scope=posts:write\n`,
    );
    const result = await tablegen(dir, "revoke", "web");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      "Revoked the key web: removed API_KEY_WEB from .env. Restart the server for it to take effect.",
    );
    expect(await envOf(dir)).toBe(`${ENV}# the app\nAPI_KEY_APP=sha256:${sha256("app")};scope=posts:write\n`);
  });

  it("revoke: removes a key that is not valid, which is how it gets out of the server's way", async ({ expect }) => {
    const dir = await project(`${ENV}API_KEY_BROKEN=my-secret\n`);
    expect((await tablegen(dir, "list")).exitCode).toBe(1);
    const result = await tablegen(dir, "revoke", "broken");
    expect(result.exitCode).toBe(0);
    expect(await envOf(dir)).toBe(ENV);
  });

  // Every refusal: one message, exit code 1, and the .env as it was.
  const refusals: [string, string, string[], string][] = [
    [
      "a name that is not one",
      ENV,
      ["new", "Mobile", "--scope", "posts:read"],
      '"Mobile" is not a key name: use lower-case letters, digits and _, starting with a letter, at most 63 characters',
    ],
    [
      "a name in use",
      `${ENV}API_KEY_WEB="sha256:${HASH};scope=*:read"\n`,
      ["new", "web", "--scope", "posts:read"],
      "a key named web exists already (.env:4 API_KEY_WEB): revoke it first, or choose another name",
    ],
    ["no --scope", ENV, ["new", "web"], "required option '--scope <scope>' not specified\n(add --help for usage)"],
    [
      "an empty scope",
      ENV,
      ["new", "web", "--scope", ""],
      "--scope: scope is empty: give at least one <table or query>:<action>, e.g. posts:read",
    ],
    [
      "an unknown action",
      ENV,
      ["new", "web", "--scope", "posts:remove"],
      '--scope: scope entry "posts:remove": unknown action "remove" (expected list, show, create, update, delete, read or write)',
    ],
    [
      "a scope entry without an action",
      ENV,
      ["new", "web", "--scope", "posts"],
      '--scope: scope entry "posts" names no action: write <table or query>:<action>, e.g. posts:read',
    ],
    [
      "a bad version label",
      ENV,
      ["new", "web", "--scope", "posts@2:read"],
      '--scope: scope entry "posts@2:read": "2" is not a version label (v1, v2…)',
    ],
    [
      "an unknown table or query",
      ENV,
      ["new", "web", "--scope", "posts:read,drafts:write"],
      '--scope: scope entry "drafts:write": drafts is no table or query of blog',
    ],
    [
      "a table action on a query",
      ENV,
      ["new", "web", "--scope", "category_posts:list"],
      '--scope: scope entry "category_posts:list": category_posts is a custom query, which takes read or write, not list',
    ],
    [
      "an unknown version",
      ENV,
      ["new", "web", "--scope", "*@v3:read"],
      '--scope: scope entry "*@v3:read": v3 is no version of blog (v1, v2)',
    ],
    [
      "a table not served in the version",
      ENV,
      ["new", "web", "--scope", "comments@v1:read"],
      '--scope: scope entry "comments@v1:read": comments is not served in v1 (only in v2)',
    ],
    [
      "a bad duration",
      ENV,
      ["new", "web", "--scope", "*:read", "--expires", "soon"],
      '--expires: "soon" is neither a duration (90d, 12h, 2w) nor a date or date-time (2027-01-01, 2027-01-01T12:00:00Z)',
    ],
    [
      "an expiry in the past",
      ENV,
      ["new", "web", "--scope", "*:read", "--expires", "2020-01-01"],
      "--expires: 2020-01-01T00:00:00Z is not in the future",
    ],
    [
      "a bad limit",
      ENV,
      ["new", "web", "--scope", "*:read", "--limit", "100/week"],
      '--limit: limit "100/week" is not a number of requests per second, minute, hour or day, such as 100/min (1 to 1000000000)',
    ],
    [
      "a bad key in the .env",
      `${ENV}API_KEY_OLD=sha256:${HASH}\n`,
      ["new", "web", "--scope", "*:read"],
      ".env:4 API_KEY_OLD: has no scope=: say what the key may do, e.g. scope=posts:read",
    ],
    [
      "two bad keys in the .env",
      `${ENV}API_KEY_A=x\nAPI_KEY_B="sha256:${HASH};scope=*:read"\nAPI_KEY_B="sha256:${HASH};scope=*:write"\n`,
      ["list"],
      '.env: 2 keys are not valid:\n  .env:4 API_KEY_A: must start with sha256:<64 hex digits>, the SHA-256 of the key\'s secret ("tablegen keys new" writes it)\n  .env:6 API_KEY_B: defined again (first on line 5): keep one',
    ],
    [
      "two keys with one secret",
      `${ENV}API_KEY_A="sha256:${HASH};scope=*:read"\nAPI_KEY_B="sha256:${HASH};scope=*:write"\n`,
      ["list"],
      ".env:5 API_KEY_B: holds the same secret's hash as API_KEY_A",
    ],
    [
      "a revoke of a key that is not there",
      `${ENV}API_KEY_WEB="sha256:${HASH};scope=*:read"\n`,
      ["revoke", "app"],
      ".env has no key named app (its keys: web)",
    ],
    ["a revoke without keys", ENV, ["revoke", "app"], ".env has no key named app (it has none)"],
  ];
  it.for(refusals)("refuses %s, saying why", async ([, env, args, message], { expect }) => {
    const dir = await project(env);
    const result = await tablegen(dir, ...args);
    expect(result.stderr).toBe(`tablegen: ${message}`);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(await envOf(dir)).toBe(env);
  });

  it("refuses without a manifest, and with one that is not valid", async ({ expect }) => {
    const empty = join(base, `empty-${++projects}`);
    await mkdir(empty);
    const missing = await tablegen(empty, "list");
    expect(missing.stderr).toBe(
      "tablegen: tablegen.yaml: manifest not found (run tablegen keys beside it, or give --manifest)",
    );
    expect(missing.exitCode).toBe(1);
    const dir = await project();
    await writeFile(join(dir, "tablegen.yaml"), "project: Blog\ntables: {}\n");
    const invalid = await tablegen(dir, "new", "web", "--scope", "*:read");
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toMatch(/^tablegen: tablegen\.yaml: \d+ problems?:\n {2}tablegen\.yaml:1:10 project: /);
    expect(await envOf(dir)).toBe(ENV);
  });
});
