import { existsSync } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EXAMPLE_MANIFEST } from "../../src/ai/prompt.ts";
import { toAiForm } from "../../src/ai/schema.ts";
import { ai, type AiCommandOptions } from "../../src/cli/ai.ts";
import { generate } from "../../src/cli/generate.ts";
import { init } from "../../src/cli/init.ts";
import { shownPath } from "../../src/cli/paths.ts";
import { scratchDir } from "../helpers/generate.ts";
import { client } from "../helpers/http.ts";
import { migrate, startServer } from "../helpers/server.ts";
import { userErrorMessage } from "../helpers/errors.ts";
import { startFakeOpenAI, type FakeOpenAI, type Reply } from "./fake-openai.ts";

// The commands' own work, in this process (the CLI's child processes are in cli.test.ts): flags,
// environment, files, init --ai, and the one heavy test: the drafted manifest runs as a server.

const VALID = toAiForm(EXAMPLE_MANIFEST);
const VARIABLES = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "TABLEGEN_AI_MODEL"] as const;
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
const servers: FakeOpenAI[] = [];
let printed: string[];

beforeEach(() => {
  for (const name of VARIABLES) delete process.env[name];
  printed = [];
  vi.spyOn(console, "log").mockImplementation((text: string) => void printed.push(text));
});

afterEach(() => {
  vi.restoreAllMocks();
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** A fake server, with OPENAI_API_KEY and OPENAI_BASE_URL pointing at it. */
async function serve(replies: Reply[]): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(replies);
  servers.push(server);
  process.env.OPENAI_API_KEY = "test";
  process.env.OPENAI_BASE_URL = server.url;
  return server;
}

describe("tablegen ai's options", () => {
  it("takes the model from --model, else TABLEGEN_AI_MODEL; writes --out, never over a file without --force", async () => {
    const dir = await scratchDir("ai-options");
    const server = await serve([{ content: VALID }, { content: VALID }, { content: VALID }]);
    process.env.TABLEGEN_AI_MODEL = "llama3.2";
    const out = join(dir, "drafts/blog.yaml");
    const options = (extra: Partial<AiCommandOptions> = {}): AiCommandOptions => ({ out, ...extra });

    // Beside a manifest without one, a .env as init writes it, and the .gitignore lines that keep it out of git.
    const drafts = join(dir, "drafts");
    expect(await ai("a blog", options(), false)).toEqual([out, join(drafts, ".env"), join(drafts, ".gitignore")]);
    expect(await readFile(join(drafts, ".env"), "utf8")).toMatch(
      /^API_SIGNATURE_KEY=[A-Za-z0-9_-]{43}\nDATABASE_URL="file:.\/data.db"\n$/,
    );
    expect((await stat(join(drafts, ".env"))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(drafts, ".gitignore"), "utf8")).toContain(".env\n");
    expect(await readFile(out, "utf8")).toMatch(/^# Drafted by tablegen ai \(llama3\.2\) from:\n# {3}a blog\n/);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^\nProject blog: SQLite, API version v1\n\nTables \(3\)\n/);

    const refusal = await userErrorMessage(ai("a blog", options({ model: "qwen3" }), false));
    expect(refusal).toBe(`${shownPath(out)} already exists; use --force to overwrite it`);
    expect(server.requests).toHaveLength(1);

    // An existing .env is kept: only the manifest is written.
    const env = await readFile(join(drafts, ".env"), "utf8");
    expect(await ai("a library", options({ model: "qwen3", force: true }), false)).toEqual([out]);
    expect(await readFile(join(drafts, ".env"), "utf8")).toBe(env);
    expect(await readFile(out, "utf8")).toMatch(/^# Drafted by tablegen ai \(qwen3\) from:\n# {3}a library\n/);
    const json = join(dir, "blog.json");
    await ai("a blog", { out: json, model: "qwen3" }, false);
    expect(JSON.parse(await readFile(json, "utf8"))).toMatchObject({
      project: "blog",
      tables: { authors: { fields: { bio: "PARAGRAPH" } } },
    });
    expect(server.requests.map((request) => request.body.model)).toEqual(["llama3.2", "qwen3", "qwen3"]);
  });

  it("refuses bad options, an empty description, a missing key or a base URL that is not one, before any request", async () => {
    const dir = await scratchDir("ai-refusals");
    const out = join(dir, "tablegen.yaml");
    expect(await userErrorMessage(ai("a blog", { out }, false))).toBe(
      "OPENAI_API_KEY is not set: the AI generator needs an API key (OPENAI_BASE_URL points it at any OpenAI-compatible server)",
    );
    const server = await serve([]);
    const messages = await Promise.all([
      userErrorMessage(ai("a blog", { out, timeout: "soon" }, false)),
      userErrorMessage(ai("a blog", { out, timeout: "0" }, false)),
      userErrorMessage(ai("a blog", { out, maxRepairs: "-1" }, false)),
      userErrorMessage(ai("a blog", { out, maxRepairs: "1.5" }, false)),
      userErrorMessage(ai("  ", { out }, false)),
    ]);
    expect(messages).toEqual([
      '--timeout must be a positive number of seconds, not "soon"',
      '--timeout must be a positive number of seconds, not "0"',
      '--max-repairs must be a whole number (0 or more), not "-1"',
      '--max-repairs must be a whole number (0 or more), not "1.5"',
      'ai: the description is empty: say what the application does, e.g. "a lending library"',
    ]);
    process.env.OPENAI_BASE_URL = "localhost:11434";
    expect(await userErrorMessage(ai("a blog", { out }, false))).toBe(
      'OPENAI_BASE_URL is not an http(s) URL: "localhost:11434" (for example http://localhost:11434/v1 for Ollama)',
    );
    expect(server.requests).toHaveLength(0);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("tablegen init --ai", () => {
  it("writes the drafted tables under the project's name, with a .env and a .gitignore", async () => {
    const dir = await scratchDir("ai-init");
    const server = await serve([{ content: { ...(VALID as object), project: "my-blog", database: "postgresql" } }]);
    const written = await init(join(dir, "journal"), { ai: "a blog", yes: true }, false);
    expect(written.map((path) => path.slice(dir.length + 1))).toEqual([
      "journal/tablegen.yaml",
      "journal/.env",
      "journal/.gitignore",
    ]);
    const manifest = await readFile(join(dir, "journal/tablegen.yaml"), "utf8");
    expect(manifest).toMatch(/^# Drafted by tablegen ai \(gpt-4\.1-mini\) from:\n# {3}a blog\n\n/);
    // The project is the directory's (or --name's); the model chose the database.
    expect(manifest).toMatch(/\nproject: journal\ndatabase: postgresql\ntables:\n {2}authors:\n/);
    expect(await readFile(join(dir, "journal/.env"), "utf8")).toMatch(
      /^API_SIGNATURE_KEY=[A-Za-z0-9_-]{43}\nDATABASE_URL="postgresql:\/\/postgres@localhost:5432\/journal"\n$/,
    );
    expect(printed[0]).toMatch(/^\nProject journal: PostgreSQL, API version v1\n/);
    expect(server.requests[0]!.body.messages[1]).toEqual({ role: "user", content: "a blog" });

    // --db is the user's choice too.
    await serve([{ content: { ...(VALID as object), database: "postgresql" } }]);
    await init(join(dir, "diary"), { ai: "a blog", yes: true, name: "my-diary", db: "sqlite" }, false);
    expect(await readFile(join(dir, "diary/tablegen.yaml"), "utf8")).toMatch(/\nproject: my-diary\ndatabase: sqlite\n/);
    expect(await readFile(join(dir, "diary/.env"), "utf8")).toMatch(/\nDATABASE_URL="file:\.\/data\.db"\n$/);
  });

  it("writes nothing when the model fails", async () => {
    const dir = await scratchDir("ai-init-failure");
    await serve([{ status: 429, body: { error: { message: "Rate limit reached", type: "requests" } } }]);
    expect(await userErrorMessage(init(dir, { ai: "a blog", yes: true }, false))).toBe(
      "the model server answered 429: Rate limit reached",
    );
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("a drafted manifest", () => {
  it("generates a server that starts and answers", async () => {
    const dir = await scratchDir("ai-server");
    await serve([{ content: VALID }]);
    const [manifest] = await ai("a blog", { out: join(dir, "tablegen.yaml"), yes: true }, false);
    const generated = await generate({ manifest: manifest!, out: join(dir, "server") });
    expect(generated.ok).toBe(true);
    expect(existsSync(join(dir, "server/package.json"))).toBe(true);

    const env = { DATABASE_URL: "file:./data.db", API_SIGNATURE_KEY: "ai-test-key-0123456789" };
    await migrate(join(dir, "server"), env);
    const running = await startServer(join(dir, "server"), env);
    try {
      const api = client(`${running.url}/blog`, env.API_SIGNATURE_KEY);
      const author = await api.post("/authors/v1/create", { name: "Ada", email: "ada@example.com" });
      expect(author.status, author.text).toBe(201);
      const post = await api.post("/posts/v1/create", { title: "Hello", body: "First post", author_id: 1 });
      expect(post.status, post.text).toBe(201);
      const list = await api.get("/posts/v1/list");
      expect(list.status, list.text).toBe(200);
      expect(list.body).toMatchObject({ success: true, message: "Data found.", data: [{ id: 1, title: "Hello" }] });
      const query = await api.get("/v1/author_posts?author_id=1");
      expect(query.status, query.text).toBe(200);
      expect(query.body).toMatchObject({ success: true, data: [{ id: 1, title: "Hello", comment_count: 0 }] });
    } finally {
      await running.stop();
    }
  });
});
