import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_MANIFEST } from "../../src/ai/prompt.ts";
import { toAiForm } from "../../src/ai/schema.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { keepQueryAnswers } from "../helpers/query-answers.ts";
import { runOnTerminal } from "../helpers/terminal.ts";
import { startFakeOpenAI, type FakeOpenAI, type Reply } from "./fake-openai.ts";

// tablegen ai on a terminal (a real pseudo-terminal): the draft is shown, then accepted,
// retried with the user's instructions, or cancelled.

const TABLEGEN = [process.execPath, join(REPO, "bin/tablegen.js")];
const ENTER = "\r";
const DOWN = "\u001b[B";
const TAGGED: RawManifest = {
  ...EXAMPLE_MANIFEST,
  tables: { ...EXAMPLE_MANIFEST.tables, tags: { fields: { label: { type: "TEXT", required: true, unique: true } } } },
};
const VALID = toAiForm(EXAMPLE_MANIFEST);
const WITH_TAGS = toAiForm(TAGGED);

const servers: FakeOpenAI[] = [];

// The commands below run side by side: the drafts' queries are checked once first.
beforeAll(() => keepQueryAnswers(EXAMPLE_MANIFEST, TAGGED));

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(replies: Reply[]): Promise<{ server: FakeOpenAI; env: Record<string, string> }> {
  const server = await startFakeOpenAI(replies);
  servers.push(server);
  return { server, env: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: server.url, TABLEGEN_AI_MODEL: "" } };
}

describe.concurrent("tablegen ai on a terminal", () => {
  it("shows the draft, retries with the user's instructions, then writes the accepted revision", async () => {
    const dir = await scratchDir("ai-terminal-retry");
    const { server, env } = await serve([{ content: VALID }, { content: WITH_TAGS }]);
    const run = await runOnTerminal(
      [...TABLEGEN, "ai", "a blog"],
      dir,
      [
        ["Use this manifest?", DOWN + ENTER],
        ["What should change?", "add a tags table" + ENTER],
        ["Use the revised manifest (revision 1)?", ENTER],
      ],
      env,
    );
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain("Drafting the manifest with gpt-4.1-mini…");
    expect(run.output).toContain("Drafted a valid manifest with gpt-4.1-mini");
    expect(run.output).toContain("Project blog: SQLite, API version v1");
    expect(run.output).toContain("Accept: write tablegen.yaml");
    expect(run.output).toContain("Retry with extra instructions");
    expect(run.output).toContain("Tables (4)");
    expect(run.output).toContain("Wrote tablegen.yaml");

    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "a blog" },
      { role: "assistant", content: JSON.stringify(VALID) },
      { role: "user", content: "add a tags table" },
    ]);
    expect(await readFile(join(dir, "tablegen.yaml"), "utf8")).toContain(
      "  tags:\n    fields:\n      label: { type: TEXT, required: true, unique: true }\n",
    );
  });

  it("writes nothing when the user cancels", async () => {
    const dir = await scratchDir("ai-terminal-cancel");
    const { server, env } = await serve([{ content: VALID }]);
    const run = await runOnTerminal(
      [...TABLEGEN, "ai", "a blog"],
      dir,
      [["Use this manifest?", DOWN + DOWN + ENTER]],
      env,
    );
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain("Project blog: SQLite, API version v1");
    expect(run.output).toContain("tablegen: cancelled: nothing was written");
    expect(server.requests).toHaveLength(1);
    expect(existsSync(join(dir, "tablegen.yaml"))).toBe(false);
  });

  it("init --ai asks for the project name and the database, then shows the draft", async () => {
    const dir = await scratchDir("ai-terminal-init");
    const { server, env } = await serve([{ content: { ...(VALID as object), database: "postgresql" } }]);
    const run = await runOnTerminal(
      [...TABLEGEN, "init", "--ai", "a blog"],
      dir,
      [
        ["Project name", "journal" + ENTER],
        ["Database", ENTER],
        ["Use this manifest?", ENTER],
      ],
      env,
    );
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).not.toContain("Start from the example");
    expect(run.output).toContain("Project journal: SQLite, API version v1");
    expect(run.output).toContain("Wrote tablegen.yaml, .env, .gitignore");
    expect(server.requests).toHaveLength(1);
    expect(await readFile(join(dir, "tablegen.yaml"), "utf8")).toMatch(/\nproject: journal\ndatabase: sqlite\n/);
  });

  it("writes at once with --yes, without asking", async () => {
    const dir = await scratchDir("ai-terminal-yes");
    const { env } = await serve([{ content: VALID }]);
    const run = await runOnTerminal([...TABLEGEN, "ai", "a blog", "--yes"], dir, [], env);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).not.toContain("Use this manifest?");
    expect(run.output).toContain("Wrote tablegen.yaml");
    expect(existsSync(join(dir, "tablegen.yaml"))).toBe(true);
  });
});
