import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_NAME } from "../../src/ai/generate.ts";
import { EXAMPLE_MANIFEST, SYSTEM_PROMPT } from "../../src/ai/prompt.ts";
import { AI_JSON_SCHEMA, toAiForm } from "../../src/ai/schema.ts";
import { QUERY_CACHE_VARIABLE } from "../../src/cli/described-cache.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { keepQueryAnswers } from "../helpers/query-answers.ts";
import { startFakeOpenAI, type FakeOpenAI, type Reply } from "./fake-openai.ts";

// `tablegen ai` and `tablegen init --ai` as a user runs them: the real CLI in a child process,
// talking to our fake OpenAI-compatible server over loopback.

const VALID = toAiForm(EXAMPLE_MANIFEST);
const MISSING_KEY =
  "tablegen: OPENAI_API_KEY is not set: the AI generator needs an API key (OPENAI_BASE_URL points it at any OpenAI-compatible server)";
const NEXT = "Next: tablegen generate && tablegen migrate && cd server && npm install && npm start";

const servers: FakeOpenAI[] = [];

// The commands below run side by side: the draft's queries are checked once first.
beforeAll(() => keepQueryAnswers(EXAMPLE_MANIFEST));

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(replies: Reply[]): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(replies);
  servers.push(server);
  return server;
}

/**
 * The variables of the test's own environment a command gets: PATH, HOME, TMPDIR, and the run's
 * own cache of query checks (no OPENAI_* or other TABLEGEN_* variables of the machine running the tests).
 */
function passedOn(): Record<string, string> {
  return Object.fromEntries(
    ["PATH", "HOME", "TMPDIR", QUERY_CACHE_VARIABLE].flatMap((name) =>
      process.env[name] ? [[name, process.env[name]!]] : [],
    ),
  );
}

/**
 * Runs the CLI with only the environment given (and passedOn's), its standard input not a terminal.
 */
function tablegen(cwd: string, args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [join(REPO, "bin/tablegen.js"), ...args], {
    cwd,
    env: { ...passedOn(), NO_COLOR: "1", ...env },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
}

/** Runs the CLI as `npx tablegen` in a project that has it installed, with only the environment given (and passedOn's). */
async function npxTablegen(cwd: string, args: string[], env: Record<string, string>) {
  await mkdir(join(cwd, "node_modules", ".bin"), { recursive: true });
  await writeFile(join(cwd, "package.json"), '{ "name": "npx-project", "private": true }\n');
  await symlink(join(REPO, "bin", "tablegen.js"), join(cwd, "node_modules", ".bin", "tablegen"));
  return execa("npx", ["tablegen", ...args], {
    cwd,
    env: { ...passedOn(), NO_COLOR: "1", npm_config_update_notifier: "false", ...env },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
}

function keyFor(server: FakeOpenAI): Record<string, string> {
  return { OPENAI_API_KEY: "test", OPENAI_BASE_URL: server.url };
}

describe.concurrent("tablegen ai", () => {
  it("says npx tablegen in its Next line when run through npx (issue 25)", async () => {
    const dir = await scratchDir("ai-npx");
    const server = await serve([{ content: VALID }]);
    const result = await npxTablegen(dir, ["ai", "A blog.", "--out", "blog.yaml"], keyFor(server));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.split("\n").at(-1)).toBe(
      "Next: npx tablegen generate --manifest blog.yaml && npx tablegen migrate --manifest blog.yaml && cd server && npm install && npm start",
    );
  });

  it("refuses to start without OPENAI_API_KEY, naming it, and writes nothing", async () => {
    const dir = await scratchDir("ai-no-key");
    const result = await tablegen(dir, ["ai", "a blog"], { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(MISSING_KEY);
    expect(result.stdout).toBe("");
    expect(await readdir(dir)).toEqual([]);
  });

  it("drafts with strict structured output, shows the summary and writes the YAML", async () => {
    const dir = await scratchDir("ai-valid");
    const server = await serve([{ content: VALID }]);
    const result = await tablegen(dir, ["ai", "A blog where authors write posts.\nReaders comment."], keyFor(server));
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\nProject blog: SQLite, API version v1\n\nTables \(3\)\n  authors\n/);
    expect(result.stdout).toContain("    author_id     NUMBER → authors, required, on delete cascade\n");
    expect(result.stdout).toContain("Relationships (2)\n  posts.author_id → authors.id (on delete cascade)\n");
    expect(result.stdout).toContain("Queries (1)\n  author_posts(author_id: NUMBER)\n");
    expect(result.stdout).toContain(`\n\nWrote tablegen.yaml, .env, .gitignore\n${NEXT}`);
    expect(result.stdout.endsWith(NEXT)).toBe(true);

    const [request] = server.requests;
    expect(server.requests).toHaveLength(1);
    expect(request!.url).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer test");
    expect(request!.body.model).toBe("gpt-4.1-mini");
    expect(request!.body.response_format.type).toBe("json_schema");
    expect(request!.body.response_format.json_schema).toEqual({
      name: SCHEMA_NAME,
      strict: true,
      schema: AI_JSON_SCHEMA,
    });
    expect(request!.body.messages).toEqual([
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: "A blog where authors write posts.\nReaders comment." },
    ]);

    const written = await readFile(join(dir, "tablegen.yaml"), "utf8");
    expect(written).toMatch(
      /^# Drafted by tablegen ai \(gpt-4\.1-mini\) from:\n# {3}A blog where authors write posts\.\n# {3}Readers comment\.\n\nproject: blog\ntables:\n/,
    );
    expect(written).toContain("      bio: PARAGRAPH\n");
    expect(written).toContain(
      "      author_id: { type: NUMBER, required: true, references: authors, onDelete: cascade }\n",
    );
  });

  it("ends a failure of the model server in one message, exit 1, no stack trace and no file", async () => {
    const dir = await scratchDir("ai-failures");
    const servers = await Promise.all([
      serve([{ status: 500, body: { error: { message: "the server broke", type: "server_error" } } }]),
      serve([{ hang: true }]),
    ]);
    const results = await Promise.all([
      tablegen(dir, ["ai", "a blog"], keyFor(servers[0]!)),
      tablegen(dir, ["ai", "a blog", "--timeout", "0.5"], keyFor(servers[1]!)),
    ]);
    expect(results.map((result) => result.stderr)).toEqual([
      "tablegen: the model server answered 500: the server broke",
      "tablegen: the model did not answer within 0.5 s",
    ]);
    for (const result of results) {
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe("");
    }
    expect(servers.map((server) => server.requests.length)).toEqual([1, 1]);
    expect(await readdir(dir)).toEqual([]);
  });
});
