import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_MODEL,
  SCHEMA_NAME,
  draftManifest,
  firstMessages,
  revisionMessages,
  type DraftSettings,
} from "../../src/ai/generate.ts";
import { EXAMPLE_MANIFEST, SYSTEM_PROMPT, repairMessage } from "../../src/ai/prompt.ts";
import { AI_JSON_SCHEMA, toAiForm } from "../../src/ai/schema.ts";
import { openaiCompletion } from "../../src/cli/openai.ts";
import { checkQueries } from "../../src/cli/queries.ts";
import { userErrorMessage } from "../helpers/errors.ts";
import { startFakeOpenAI, type FakeOpenAI, type Reply } from "./fake-openai.ts";

// The loop of the AI generator against our fake OpenAI-compatible server, through the real SDK.

const VALID = toAiForm(EXAMPLE_MANIFEST);

/** The example with a reference to a table that does not exist and an id field. */
function invalidDraft(): unknown {
  const draft = structuredClone(VALID) as { tables: { fields: Record<string, unknown>[] }[] };
  draft.tables[1]!.fields[4]!.references = "author";
  draft.tables[2]!.fields.push({ ...draft.tables[2]!.fields[1]!, name: "id" });
  return draft;
}

const INVALID_PROBLEMS = [
  'tables.posts.fields.author_id.references: refers to a table that does not exist: "author" (did you mean "authors"?)',
  'tables.comments.fields.id: "id" is a reserved field name: every table has an implicit id',
];

let fake: FakeOpenAI | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function serve(replies: Reply[]): Promise<FakeOpenAI> {
  fake = await startFakeOpenAI(replies);
  return fake;
}

function settings(
  baseURL: string,
  { timeoutSeconds = 10, ...extra }: Partial<DraftSettings> & { timeoutSeconds?: number } = {},
): DraftSettings {
  return {
    complete: openaiCompletion({ apiKey: "test", baseURL, model: DEFAULT_MODEL, timeoutSeconds }),
    model: DEFAULT_MODEL,
    maxRepairs: 2,
    file: "tablegen.yaml",
    ...extra,
  };
}

describe("drafting a manifest", () => {
  it("asks with strict structured output, the system prompt, and the description as the user message", async () => {
    const server = await serve([{ content: VALID }]);
    const draft = await draftManifest(firstMessages("a blog, with comments"), settings(server.url));
    expect(draft.manifest).toEqual({
      ...EXAMPLE_MANIFEST,
      tables: {
        ...EXAMPLE_MANIFEST.tables,
        authors: {
          fields: { ...EXAMPLE_MANIFEST.tables.authors!.fields, bio: { type: "PARAGRAPH" } },
        },
        posts: {
          fields: { ...EXAMPLE_MANIFEST.tables.posts!.fields, published_at: { type: "DATETIME" } },
        },
      },
    });
    expect(draft.text).toContain("project: blog\ntables:\n  authors:\n");
    expect(draft.text).toContain("      bio: PARAGRAPH\n");
    expect(draft.repairs).toBe(0);

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.headers.authorization).toBe("Bearer test");
    expect(request!.body.model).toBe("gpt-4.1-mini");
    expect(request!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: SCHEMA_NAME, strict: true, schema: AI_JSON_SCHEMA },
    });
    expect(request!.body.messages).toEqual([
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: "a blog, with comments" },
    ]);
    expect(draft.messages).toEqual([...request!.body.messages, { role: "assistant", content: JSON.stringify(VALID) }]);
  });

  it("sends the validator's problems back and returns the repaired draft", async () => {
    const server = await serve([{ content: invalidDraft() }, { content: VALID }]);
    const draft = await draftManifest(firstMessages("a blog"), settings(server.url));
    expect(draft.repairs).toBe(1);
    expect(draft.manifest.tables.posts!.fields.author_id).toMatchObject({ references: "authors" });
    expect(server.requests).toHaveLength(2);
    const messages = server.requests[1]!.body.messages;
    expect(messages).toHaveLength(4);
    expect(messages[2]).toEqual({ role: "assistant", content: JSON.stringify(invalidDraft()) });
    expect(messages[3]).toEqual({
      role: "user",
      content: [
        "Your manifest is invalid. The validator reports these problems (paths name entries by their name):",
        ...INVALID_PROBLEMS.map((problem) => `- ${problem}`),
        "Fix every problem and answer with the whole corrected manifest in the same structure.",
      ].join("\n"),
    });
    expect(messages[3]!.content).toBe(repairMessage(INVALID_PROBLEMS));
    expect(server.requests[1]!.body.response_format.json_schema.strict).toBe(true);
  });

  it("sends back what the database says of a custom query, prepared against the draft's tables", async () => {
    const typo = structuredClone(VALID) as { queries: { sql: string }[] };
    typo.queries[0]!.sql = typo.queries[0]!.sql.replace("p.published_at,", "p.publish_date,");
    const server = await serve([{ content: typo }, { content: VALID }]);
    const draft = await draftManifest(firstMessages("a blog"), settings(server.url, { checkQueries }));
    expect(draft.repairs).toBe(1);
    expect(server.requests[1]!.body.messages[3]!.content).toBe(
      repairMessage(["queries.author_posts.sql: no such column: p.publish_date"]),
    );
  });

  it("gives up with the last problems once the repairs are used up", async () => {
    const server = await serve([{ content: invalidDraft() }, { content: invalidDraft() }]);
    const message = await userErrorMessage(
      draftManifest(firstMessages("a blog"), settings(server.url, { maxRepairs: 1 })),
    );
    expect(message).toBe(
      ["the model's manifest is invalid still, after 1 repair:", ...INVALID_PROBLEMS.map((p) => `  ${p}`)].join("\n"),
    );
    expect(server.requests).toHaveLength(2);

    const once = await serve([{ content: { ...(VALID as object), project: "My Blog" } }]);
    expect(await userErrorMessage(draftManifest(firstMessages("a blog"), settings(once.url, { maxRepairs: 0 })))).toBe(
      [
        "the model's manifest is invalid and --max-repairs is 0:",
        '  project: "My Blog" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
      ].join("\n"),
    );
  });

  it("sends back names given twice, which a map cannot hold", async () => {
    const twice = structuredClone(VALID) as { tables: unknown[] };
    twice.tables.push(twice.tables[0]);
    const server = await serve([{ content: twice }, { content: VALID }]);
    await draftManifest(firstMessages("a blog"), settings(server.url));
    expect(server.requests[1]!.body.messages[3]!.content).toContain(
      '- tables.authors: duplicate name "authors": each name must appear once\n',
    );
  });

  it("keeps the values the user chose, whatever the model says", async () => {
    const server = await serve([{ content: VALID }]);
    const draft = await draftManifest(
      firstMessages("a blog"),
      settings(server.url, { overrides: { project: "journal", database: "postgresql" } }),
    );
    expect(draft.manifest).toMatchObject({ project: "journal", database: "postgresql" });
    expect(draft.text).toMatch(/^project: journal\ndatabase: postgresql\n/);
  });

  it("continues the conversation with the user's instructions for a revision", async () => {
    const server = await serve([{ content: VALID }, { content: VALID }]);
    const first = await draftManifest(firstMessages("a blog"), settings(server.url));
    await draftManifest(revisionMessages(first, "add a tags table"), settings(server.url));
    expect(server.requests[1]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "a blog" },
      { role: "assistant", content: JSON.stringify(VALID) },
      { role: "user", content: "add a tags table" },
    ]);
  });

  it("accepts JSON in a Markdown fence, as some compatible servers send it", async () => {
    const server = await serve([{ content: "```json\n" + JSON.stringify(VALID) + "\n```" }]);
    const draft = await draftManifest(firstMessages("a blog"), settings(server.url));
    expect(draft.manifest.project).toBe("blog");
  });
});

describe("a failing model server", () => {
  const cases: [string, Reply, string][] = [
    [
      "an HTTP error with a JSON message",
      { status: 500, body: { error: { message: "the server broke", type: "server_error" } } },
      "the model server answered 500: the server broke",
    ],
    [
      "a bad key",
      { status: 401, body: { error: { message: "Incorrect API key provided: test.", code: "invalid_api_key" } } },
      "the model server answered 401: Incorrect API key provided: test.",
    ],
    [
      "an error in plain text",
      { status: 502, body: "Bad Gateway\n<html>" },
      "the model server answered 502: Bad Gateway",
    ],
    ["an error without a body", { status: 503 }, "the model server answered 503"],
    [
      "Ollama's error shape",
      { status: 404, body: { error: "model 'llama9' not found" } },
      "the model server answered 404: model 'llama9' not found",
    ],
    ["a refusal", { refusal: "I can't help with that." }, "the model refused: I can't help with that."],
    ["an answer that is not JSON", { content: "Here is your manifest: tables..." }, "the model's answer is not JSON"],
    [
      "an answer cut off",
      { content: '{"project": "blog", "tab', finishReason: "length" },
      "the model's answer is not JSON: it was cut off at the model's length limit",
    ],
    ["an empty answer", { content: "" }, "the model's answer is empty"],
    [
      "a success that is not a completion",
      { status: 200, body: { hello: "world" } },
      "the model server's answer is not a chat completion",
    ],
  ];
  it.each(cases)("ends in one clear message: %s", async (_name, reply, expected) => {
    const server = await serve([reply]);
    expect(await userErrorMessage(draftManifest(firstMessages("a blog"), settings(server.url)))).toBe(expected);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up when the model does not answer within the timeout", async () => {
    const server = await serve([{ hang: true }]);
    const started = Date.now();
    const message = await userErrorMessage(
      draftManifest(firstMessages("a blog"), settings(server.url, { timeoutSeconds: 0.3 })),
    );
    expect(message).toBe("the model did not answer within 0.3 s");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });

  it("says when the server cannot be reached", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, "close");
    const url = `http://127.0.0.1:${port}/v1`;
    expect(await userErrorMessage(draftManifest(firstMessages("a blog"), settings(url)))).toBe(
      `cannot reach the model server at ${url} (ECONNREFUSED)`,
    );
  });
});
