import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { toAiForm } from "../../src/ai/schema.ts";
import { MISSING_KEY } from "../../src/cli/ai.ts";
import { HOW_TO_CONFIGURE } from "../../src/studio/ai.ts";
import { startStudio, type Studio } from "../../src/studio/app.ts";
import type { StreamEvent } from "../../src/studio/protocol.ts";
import { startFakeOpenAI, type FakeOpenAI } from "../ai/fake-openai.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { startStudioProcess } from "./studio-process.ts";

// The studio's server over plain HTTP: its guard (token, Host, Origin, loopback only), and every
// error path of its API with its status and exact message. The studio runs in this process, in
// the workspace folder (as `tablegen studio` runs there, so paths read as they would); the command
// itself, its options and its signals, run as a child process at the end.

const TOKEN = "test-token-0123456789-abcdefghijklmnop";
const AI_VARIABLES = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "TABLEGEN_AI_MODEL", "API_SIGNATURE_KEY", "DATABASE_URL"];

let studio: Studio;
let workspace: string;
const home = process.cwd();
const savedEnv = Object.fromEntries(AI_VARIABLES.map((name) => [name, process.env[name]]));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** A request to the studio over a real socket, with the run's cookie and its own Host unless told otherwise. */
function call(
  method: string,
  path: string,
  options: {
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
    cookie?: boolean;
    /** Called as each part of the answer arrives (a long step's events come one by one). */
    onChunk?: () => void;
  } = {},
): Promise<Answer> {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    host: `127.0.0.1:${studio.port}`,
    ...(options.cookie !== false && { cookie: `tablegen_studio_${studio.port}=${TOKEN}` }),
    ...(body !== undefined && {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
    }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port: studio.port, method, path, headers }, (incoming) => {
      let text = "";
      incoming.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        options.onChunk?.();
      });
      incoming.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: incoming.statusCode!, headers: incoming.headers, text, json });
      });
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** A long step's events, and how it ended. */
async function events(
  path: string,
  body: unknown = {},
  onChunk?: () => void,
): Promise<{ status: number; events: StreamEvent[]; last: StreamEvent }> {
  const answer = await call("POST", path, { body, ...(onChunk && { onChunk }) });
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`);
  const list = answer.text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as StreamEvent);
  return { status: answer.status, events: list, last: list.at(-1)! };
}

const failure = (message: string): StreamEvent => ({ type: "error", message });
const manifestPath = () => join(workspace, "shop", "tablegen.yaml");

beforeAll(async () => {
  for (const name of AI_VARIABLES) delete process.env[name];
  workspace = await scratchDir("studio-http");
  process.chdir(workspace);
  studio = await startStudio({ dir: workspace, port: 0, token: TOKEN });
});

afterAll(async () => {
  await studio?.close();
  process.chdir(home);
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the guard", () => {
  it("binds to 127.0.0.1 only", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address && !address.internal)
      .map((address) => address!.address);
    for (const host of [...others, "::1"]) {
      const refused = await new Promise<string>((resolve) => {
        const socket = connect({ host, port: studio.port });
        socket.on("connect", () => (socket.destroy(), resolve("connected")));
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
      expect(refused, host).not.toBe("connected");
    }
    expect((await call("GET", "/api/workspace")).status).toBe(200);
  });

  it("wants the token: none, or a wrong one, is a 401", async () => {
    const message = "Unauthorized: open the address tablegen studio printed, with its token";
    for (const answer of [
      await call("GET", "/", { cookie: false }),
      await call("GET", "/api/workspace", { cookie: false }),
      await call("GET", "/main.js", { cookie: false }),
      await call("GET", "/?token=wrong", { cookie: false }),
      await call("GET", "/api/workspace", {
        cookie: false,
        headers: { cookie: `tablegen_studio_${studio.port}=wrong` },
      }),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ message });
    }
    // A browser without the token gets the same reason as a page.
    const page = await call("GET", "/", { cookie: false, headers: { accept: "text/html,*/*" } });
    expect(page.status).toBe(401);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.text).toContain(`<p>${message}: the line <code>tablegen studio: http://127.0.0.1:…/?token=…</code>`);
  });

  it("turns the printed URL's token into an HttpOnly SameSite=Strict cookie and takes it out of the address", async () => {
    const answer = await call("GET", `/?token=${TOKEN}`, { cookie: false });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe("/");
    expect(answer.headers["set-cookie"]).toEqual([
      `tablegen_studio_${studio.port}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
    ]);
    const page = await call("GET", "/");
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="/main.js"></script>');
    expect(page.headers["content-security-policy"]).toBe(
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect((await call("GET", "/main.js")).headers["content-type"]).toMatch(
      /^application\/javascript|^text\/javascript/,
    );
  });

  it("refuses a foreign Host (DNS rebinding), even with the cookie", async () => {
    for (const host of ["evil.example", `evil.example:${studio.port}`, `127.0.0.1:${studio.port + 1}`]) {
      const answer = await call("GET", "/api/workspace", { headers: { host } });
      expect(answer.status).toBe(403);
      expect(answer.json).toEqual({
        message: `Refused: this studio answers only at http://127.0.0.1:${studio.port}/ (Host was "${host}")`,
      });
    }
    expect((await call("GET", "/api/workspace", { headers: { host: `localhost:${studio.port}` } })).status).toBe(200);
  });

  it("refuses a change from a foreign Origin (CSRF); reads and its own origin pass", async () => {
    const refused = await call("POST", "/api/projects", {
      body: { name: "evil", database: "sqlite", start: "blank" },
      headers: { origin: "http://evil.example" },
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      message: `Refused: a change must come from the studio's own page (Origin was "http://evil.example")`,
    });
    expect(existsSync(join(workspace, "evil"))).toBe(false);
    for (const method of ["PUT", "DELETE"]) {
      const answer = await call(method, "/api/projects/shop/manifest", { body: {}, headers: { origin: "null" } });
      expect(answer, method).toMatchObject({
        status: 403,
        json: { message: `Refused: a change must come from the studio's own page (Origin was "null")` },
      });
    }
    expect((await call("GET", "/api/workspace", { headers: { origin: "http://evil.example" } })).status).toBe(200);
    const own = await call("POST", "/api/projects", {
      body: { name: "Bad Name" },
      headers: { origin: `http://127.0.0.1:${studio.port}` },
    });
    expect(own.status).toBe(400);
  });

  it("answers what is not there with a 404, and requests it cannot read with a 400 or a 415", async () => {
    expect(await call("GET", "/api/nope")).toMatchObject({
      status: 404,
      json: { message: "Not found: GET /api/nope" },
    });
    expect(await call("GET", "/nope.js")).toMatchObject({ status: 404, json: { message: "Not found: GET /nope.js" } });
    expect(await call("GET", "/api/projects/nope")).toMatchObject({
      status: 404,
      json: { message: `No project "nope" in ${workspace}` },
    });
    expect(await call("POST", "/api/projects", { body: [1] })).toMatchObject({
      status: 400,
      json: { message: "The request body must be a JSON object" },
    });
    expect(await call("POST", "/api/projects", { raw: "{nope" })).toMatchObject({
      status: 400,
      json: { message: "Invalid request: Body is not valid JSON but content-type is set to 'application/json'" },
    });
    expect(
      await call("POST", "/api/projects", { raw: "name=x", headers: { "content-type": "text/plain" } }),
    ).toMatchObject({ status: 400, json: { message: "The request body must be a JSON object" } });
    expect(
      await call("POST", "/api/projects", { raw: "<x/>", headers: { "content-type": "application/xml" } }),
    ).toMatchObject({ status: 415, json: { message: "Invalid request: Unsupported Media Type" } });
  });
});

describe("projects", () => {
  it("creates one as tablegen init does, telling its progress", async () => {
    const created = await events("/api/projects", { name: "shop", database: "sqlite", start: "example" });
    expect(created.events).toEqual([
      { type: "progress", text: "Creating shop as tablegen init does…" },
      { type: "progress", text: "Wrote shop/tablegen.yaml, shop/.env, shop/.gitignore" },
      { type: "done", result: { id: "shop" } },
    ]);
    expect(parse(await readFile(manifestPath(), "utf8")).tables.books.fields.author_id.references).toBe("authors");
    const workspaceView = await call("GET", "/api/workspace");
    expect(workspaceView.json.projects).toEqual([
      expect.objectContaining({
        id: "shop",
        database: "sqlite",
        tables: 2,
        queries: 1,
        generated: false,
        unmigrated: 2,
      }),
    ]);
  });

  it("refuses a project it cannot create, each with its reason", async () => {
    const cases: [unknown, number, string][] = [
      [
        { name: "Bad Name", database: "sqlite", start: "blank" },
        400,
        '"Bad Name" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
      ],
      [
        { name: "app", database: "mysql", start: "blank" },
        400,
        'database must be one of sqlite, postgresql, not "mysql"',
      ],
      [{ name: "app", database: "sqlite", start: "copy" }, 400, 'start must be one of blank, example, ai, not "copy"'],
      [{ name: "shop", database: "sqlite", start: "blank" }, 409, "shop already exists: pick another name"],
      [
        { name: "app", database: "sqlite", start: "ai", prompt: " " },
        400,
        'The description is empty: say what the application does, e.g. "a lending library"',
      ],
      [
        { name: "app", database: "sqlite", start: "ai", prompt: "a library" },
        400,
        `${MISSING_KEY}. ${HOW_TO_CONFIGURE}`,
      ],
    ];
    for (const [body, status, message] of cases) {
      const answer = await call("POST", "/api/projects", { body });
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.json).toEqual({ message });
    }
    expect(existsSync(join(workspace, "app"))).toBe(false);
  });

  it("creates none in a workspace that is a project itself", async () => {
    const inside = await startStudio({ dir: join(workspace, "shop"), port: 0, token: TOKEN });
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const outgoing = request(
          {
            host: "127.0.0.1",
            port: inside.port,
            method: "POST",
            path: "/api/projects",
            headers: {
              host: `127.0.0.1:${inside.port}`,
              cookie: `tablegen_studio_${inside.port}=${TOKEN}`,
              "content-type": "application/json",
            },
          },
          (incoming) => {
            let text = "";
            incoming.on("data", (chunk: Buffer) => (text += chunk.toString()));
            incoming.on("end", () =>
              resolve({ status: incoming.statusCode!, headers: incoming.headers, text, json: JSON.parse(text) }),
            );
          },
        );
        outgoing.on("error", reject);
        outgoing.end(JSON.stringify({ name: "more", database: "sqlite", start: "blank" }));
      });
      expect(answer.status).toBe(409);
      expect(answer.json).toEqual({
        message: "shop is a project itself: start tablegen studio in a folder that holds projects to create more",
      });
    } finally {
      await inside.close();
    }
  });
});

describe("the manifest", () => {
  it("validates an edit with the CLI's validator: each problem at its path, line and column; nothing written", async () => {
    const before = await readFile(manifestPath(), "utf8");
    const detail = (await call("GET", "/api/projects/shop")).json;
    const manifest = structuredClone(detail.manifest);
    manifest.tables.books.fields.title.maxLength = 0;
    manifest.tables.books.fields.summary = "STRNG";
    const answer = await call("POST", "/api/projects/shop/validate", { body: { manifest } });
    expect(answer.status).toBe(200);
    expect(answer.json.problems).toEqual([
      {
        path: ["tables", "books", "fields", "title", "maxLength"],
        message: "must be a whole number of at least 1",
        line: 14,
        column: 55,
      },
      {
        path: ["tables", "books", "fields", "summary"],
        message: 'unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
        line: 15,
        column: 16,
      },
    ]);
    expect(answer.json.text).toContain("      summary: STRNG\n");
    expect(await readFile(manifestPath(), "utf8")).toBe(before);
  });

  it("refuses to save an invalid manifest with the CLI's message, and an edit of a file changed since", async () => {
    const detail = (await call("GET", "/api/projects/shop")).json;
    const manifest = structuredClone(detail.manifest);
    manifest.tables.books.fields.author_id.references = "writers";
    const invalid = await call("PUT", "/api/projects/shop/manifest", { body: { manifest, hash: detail.hash } });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual({
      message:
        'shop/tablegen.yaml: 1 problem:\n  shop/tablegen.yaml:17:62 tables.books.fields.author_id.references: refers to a table that does not exist: "writers"',
      problems: [
        {
          path: ["tables", "books", "fields", "author_id", "references"],
          message: 'refers to a table that does not exist: "writers"',
          line: 17,
          column: 62,
        },
      ],
    });
    const stale = await call("PUT", "/api/projects/shop/manifest", {
      body: { manifest: detail.manifest, hash: "old" },
    });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({
      message:
        "shop/tablegen.yaml changed on disk since it was opened here; reload it to see the changes (yours are kept in the page until then)",
    });
    for (const [body, message] of [
      [{ manifest: [] }, "manifest must be an object: the manifest's data"],
      [{ manifest: {}, renames: [{ from: "a" }] }, "renames must be a list of { path, from, to }"],
    ] as const) {
      expect(await call("POST", "/api/projects/shop/validate", { body })).toMatchObject({
        status: 400,
        json: { message },
      });
    }
  });

  it("saves an edit through the YAML document: a hand-written comment stays", async () => {
    const text = await readFile(manifestPath(), "utf8");
    await writeFile(manifestPath(), text.replace("  books:\n", "  # Kept by hand.\n  books:   # and this one\n"));
    const detail = (await call("GET", "/api/projects/shop")).json;
    const manifest = structuredClone(detail.manifest);
    manifest.tables.books.fields.note = { type: "TEXT", maxLength: 40 };
    const saved = await call("PUT", "/api/projects/shop/manifest", { body: { manifest, hash: detail.hash } });
    expect(saved.status).toBe(200);
    const after = await readFile(manifestPath(), "utf8");
    expect(after).toContain("  # Kept by hand.\n  books:   # and this one\n");
    expect(after).toContain("      note: { type: TEXT, maxLength: 40 }\n");
    expect(saved.json.hash).not.toBe(detail.hash);
  });

  it("names a reference's relations for expand (as:, reverse:): saved, each refused name at its path, cleared", async () => {
    const original = await readFile(manifestPath(), "utf8");
    const path = ["tables", "books", "fields", "author_id"];
    const edited = async (change: (field: Record<string, unknown>) => void) => {
      const detail = (await call("GET", "/api/projects/shop")).json;
      const manifest = structuredClone(detail.manifest);
      change(manifest.tables.books.fields.author_id);
      return { manifest, hash: detail.hash };
    };
    try {
      // Valid: the relations each table can expand come with the answer, as the generator names them.
      const named = await edited((field) => Object.assign(field, { as: "writer", reverse: "works" }));
      const answer = await call("POST", "/api/projects/shop/validate", { body: named });
      expect(answer.status).toBe(200);
      expect(answer.json.problems).toEqual([]);
      expect(answer.json.relations).toEqual({
        authors: [{ name: "works", kind: "many", table: "books", field: "author_id" }],
        books: [{ name: "writer", kind: "one", table: "authors", field: "author_id" }],
      });
      expect((await call("PUT", "/api/projects/shop/manifest", { body: named })).status).toBe(200);
      expect(await readFile(manifestPath(), "utf8")).toContain(
        "      author_id: { type: NUMBER, required: true, references: authors, onDelete: cascade, as: writer, reverse: works }\n",
      );
      const model = (await call("GET", "/api/projects/shop")).json.model;
      expect(model.tables.map((table: { relations: unknown }) => table.relations)).toEqual([
        { v1: [{ name: "works", kind: "many", table: "books", field: "author_id" }] },
        { v1: [{ name: "writer", kind: "one", table: "authors", field: "author_id" }] },
      ]);

      // Refused: the validator's message at the option's path, and no relations (the draft is not valid).
      // Each at its value in the file (line 18: author_id's line, as writer, reverse works).
      for (const [option, value, column, message] of [
        ["as", "title", 94, '"title" is a field of books: a relation of books needs a name of its own'],
        ["reverse", "email", 111, '"email" is a field of authors: a relation of authors needs a name of its own'],
        [
          "as",
          "Writer",
          94,
          '"Writer" is not a valid relation name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
        ],
        [
          "reverse",
          "constructor",
          111,
          '"constructor" is a reserved relation name: every JavaScript object has a constructor',
        ],
      ] as const) {
        const refused = await call("POST", "/api/projects/shop/validate", {
          body: await edited((field) => void (field[option] = value)),
        });
        expect(refused.status).toBe(200);
        expect(refused.json.problems).toEqual([{ path: [...path, option], message, line: 18, column }]);
        expect(refused.json.relations).toBeUndefined();
      }
      const orphan = await edited((field) => {
        delete field.references;
        delete field.onDelete;
      });
      const refused = await call("PUT", "/api/projects/shop/manifest", { body: orphan });
      expect(refused.status).toBe(400);
      expect(
        refused.json.problems.map(({ path, message }: { path: string[]; message: string }) => [path, message]),
      ).toEqual([
        [[...path, "as"], "applies only to a field with references"],
        [[...path, "reverse"], "applies only to a field with references"],
      ]);

      // Cleared: the key leaves the file.
      const cleared = await edited((field) => void delete field.reverse);
      expect((await call("PUT", "/api/projects/shop/manifest", { body: cleared })).status).toBe(200);
      const after = await readFile(manifestPath(), "utf8");
      expect(after).toContain(
        "      author_id: { type: NUMBER, required: true, references: authors, onDelete: cascade, as: writer }\n",
      );
      expect(after).not.toContain("reverse");
    } finally {
      await writeFile(manifestPath(), original);
    }
  });

  it("has no plan (nor data) while the file is invalid: the CLI's message, each problem at its path", async () => {
    const text = await readFile(manifestPath(), "utf8");
    await writeFile(manifestPath(), text.replace("project: shop", "project: Shop"));
    try {
      const answer = await call("GET", "/api/projects/shop/plan");
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({
        message:
          'shop/tablegen.yaml: 1 problem:\n  shop/tablegen.yaml:3:10 project: "Shop" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
        problems: [
          {
            path: ["project"],
            message:
              '"Shop" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
            line: 3,
            column: 10,
          },
        ],
      });
      expect(await call("GET", "/api/projects/shop/data/books/v1/list")).toMatchObject({
        status: 400,
        json: answer.json,
      });
    } finally {
      await writeFile(manifestPath(), text);
    }
  });
});

describe("apply, the generated server and its data", () => {
  it("starts no server before generation, and proxies nothing to one that is not running", async () => {
    const started = await events("/api/projects/shop/server/start");
    expect(started.last).toEqual(
      failure(
        "shop/server: no generated server here; apply the changes first (the Changes page runs generate and migrate)",
      ),
    );
    expect(await call("GET", "/api/projects/shop/data/books/v1/list")).toMatchObject({
      status: 409,
      json: { message: "The server of shop is not running: start it on the Data page" },
    });
  });

  it("applies: generate then migrate, as the commands do; one step at a time", async () => {
    // The apply holds the project from its first event on: a save meanwhile is refused, not interleaved.
    let begun!: () => void;
    const first = new Promise<void>((resolve) => (begun = resolve));
    const applying = events("/api/projects/shop/apply", {}, () => begun());
    await first;
    const busy = await call("PUT", "/api/projects/shop/manifest", {
      body: { manifest: { project: "shop", tables: {} } },
    });
    const applied = await applying;
    expect(busy).toMatchObject({
      status: 409,
      json: { message: "shop is busy: an apply is under way; try again when it has finished" },
    });
    expect(
      applied.events.filter((event) => event.type === "progress").map((event) => (event as { text: string }).text),
    ).toEqual([
      "Checking what the change would lose…",
      "Generating shop/server…",
      expect.stringMatching(/^Generated shop\/server: \d+ files written, 0 unchanged$/),
      expect.stringMatching(/^Wrote the first migration: shop\/server\/prisma\/migrations\/\d+_init$/),
      "Migrating…",
      "No changes to the database schema: no migration written.",
      "Applied pending migrations to file:./data.db.",
    ]);
    expect(applied.last).toEqual({ type: "done", result: { applied: true } });
    const plan = (await call("GET", "/api/projects/shop/plan")).json;
    expect(plan).toMatchObject({ files: [], breaks: [], risks: [], pending: [], generated: true });
  });

  it("reports a server that stops as it starts, in its own words", async () => {
    const env = join(workspace, "shop", ".env");
    const text = await readFile(env, "utf8");
    await writeFile(env, text.replace(/^API_SIGNATURE_KEY=.*\n/m, ""));
    try {
      const started = await events("/api/projects/shop/server/start");
      expect(started.last).toEqual(
        failure(
          "the server stopped (exit code 1): Cannot start: API_SIGNATURE_KEY is not set: the server will not start without an API signature key",
        ),
      );
      expect((await call("GET", "/api/projects/shop/server")).json).toMatchObject({ status: "failed" });
      expect(await call("POST", "/api/projects/shop/settings/key/reveal")).toMatchObject({
        status: 409,
        json: { message: "shop/.env holds no API_SIGNATURE_KEY: rotate to make one" },
      });
    } finally {
      await writeFile(env, text);
    }
  });

  it("reads and writes through the running server, which answers with its own statuses and messages", async () => {
    const started = await events("/api/projects/shop/server/start");
    expect(started.last).toMatchObject({ type: "done", result: { status: "running" } });
    const created = await call("POST", "/api/projects/shop/data/authors/v1/create", {
      body: { name: "Ursula", email: "ursula@example.com" },
    });
    expect(created.status).toBe(201);
    const again = await call("POST", "/api/projects/shop/data/authors/v1/create", {
      body: { name: "Ursula", email: "ursula@example.com" },
    });
    expect(again).toMatchObject({
      status: 409,
      json: { success: false, message: "Invalid request: email already exists" },
    });
    await call("POST", "/api/projects/shop/data/books/v1/create", {
      body: { title: "Earthsea", author_id: 1, note: "first" },
    });
    const list = await call("GET", "/api/projects/shop/data/books/v1/list?limit=1&count=true&author_id=1");
    expect(list.status).toBe(200);
    expect(list.headers["x-total-count"]).toBe("1");
    expect(list.json.data).toEqual([expect.objectContaining({ title: "Earthsea", author_id: 1 })]);
    const query = await call("GET", "/api/projects/shop/data/v1/books_by_author?author_id=1");
    expect(query.json.data).toEqual([{ book_id: 1, title: "Earthsea", author: "Ursula" }]);
  });

  it("refuses an apply that would lose data or break a published version, with the CLI's messages", async () => {
    const detail = (await call("GET", "/api/projects/shop")).json;
    const manifest = structuredClone(detail.manifest);
    delete manifest.tables.books.fields.note;
    expect((await call("PUT", "/api/projects/shop/manifest", { body: { manifest, hash: detail.hash } })).status).toBe(
      200,
    );
    const plan = (await call("GET", "/api/projects/shop/plan")).json;
    expect(plan.risks).toEqual([{ text: "books.note: field removed, 1 row holds a value", rows: 1 }]);
    expect(plan.brokenVersions).toEqual(["v1"]);

    const lossy = await events("/api/projects/shop/apply", {});
    expect(lossy.last).toEqual(
      failure(
        "migrate refused: the change would lose data:\n  books.note: field removed, 1 row holds a value\n" +
          "A server still running code that uses what this removes or changes answers 503 on that table until it is replaced: deploy the server generated from this manifest first, then apply this migration.\n" +
          "Nothing was written or changed. Run again with --accept-data-loss to apply it.",
      ),
    );
    const breaking = await events("/api/projects/shop/apply", { acceptDataLoss: true });
    expect(breaking.last.type).toBe("error");
    const message = (breaking.last as { message: string }).message.split("\n");
    expect(message[0]).toMatch(
      /^shop\/tablegen\.yaml breaks published versions of the API \(\d+ breaks\), so nothing was written:$/,
    );
    expect(message).toContain('  v1: schema BooksRecord: field "note" removed');
    expect(message.at(-1)).toBe(
      "A published version (shop/server/openapi/<version>.json) may only grow: make the change in a new version, or run again with --allow-breaking v1 to accept it on purpose.",
    );
    expect(await call("POST", "/api/projects/shop/apply", { body: { allowBreaking: "v1" } })).toMatchObject({
      status: 400,
      json: { message: "allowBreaking must be a list of version labels" },
    });
    const applied = await events("/api/projects/shop/apply", { acceptDataLoss: true, allowBreaking: ["v1"] });
    expect(applied.last).toEqual({ type: "done", result: { applied: true } });
    const texts = applied.events.map((event) => ("text" in event ? event.text : ""));
    expect(texts).toContain("Migrating (--accept-data-loss)…");
    expect(texts).toContain("  books.note: field removed");
    expect(texts).toContain("Restarting the server onto the new code and schema…");
    const list = await call("GET", "/api/projects/shop/data/books/v1/list");
    expect(list.json.data).toEqual([expect.not.objectContaining({ note: expect.anything() })]);
  });
});

describe("settings", () => {
  it("rotates the key as the server's comma-separated list, masked in every answer, and finishes", async () => {
    const env = join(workspace, "shop", ".env");
    const key = () => /^API_SIGNATURE_KEY=(.*)$/m.exec(readFileSync(env, "utf8"))![1]!;
    const first = key();
    const view = (await call("GET", "/api/projects/shop/settings")).json;
    expect(view).toEqual({
      key: `${first.slice(0, 4)}${"•".repeat(12)}`,
      keys: 1,
      keyFrom: "env file",
      databaseUrl: "file:./data.db",
      databaseUrlFrom: "env file",
      versions: [{ label: "v1" }],
      scopedKeys: [],
    });
    expect(await call("POST", "/api/projects/shop/settings/key/finish")).toMatchObject({
      status: 409,
      json: { message: "No rotation is under way: API_SIGNATURE_KEY holds one key" },
    });
    const rotated = await call("POST", "/api/projects/shop/settings/key/rotate");
    expect(rotated.status).toBe(200);
    const keys = key().split(",");
    expect(keys).toEqual([expect.any(String), first]);
    expect(rotated.text).not.toContain(keys[0]);
    expect(rotated.json).toMatchObject({ keys: 2, server: { status: "running" } });
    expect((await call("POST", "/api/projects/shop/settings/key/reveal")).json).toEqual({ key: keys[0] });
    // The restarted server takes both keys; the studio uses the new one.
    expect((await call("GET", "/api/projects/shop/data/books/v1/list")).status).toBe(200);
    expect((await call("POST", "/api/projects/shop/settings/key/finish")).status).toBe(200);
    expect(key()).toBe(keys[0]);
  });

  it("makes, lists and revokes scoped keys as tablegen keys does, each refusal at its field", async () => {
    const env = join(workspace, "shop", ".env");
    const refusals: [Record<string, string>, string, string][] = [
      [
        { name: "Mobile", scope: "books:read" },
        "name",
        '"Mobile" is not a key name: use lower-case letters, digits and _, starting with a letter, at most 63 characters',
      ],
      [
        { name: "mobile", scope: "" },
        "scope",
        "scope is empty: give at least one <table or query>:<action>, e.g. posts:read",
      ],
      [
        { name: "mobile", scope: "readers:read" },
        "scope",
        'scope entry "readers:read": readers is no table or query of shop',
      ],
      [
        { name: "mobile", scope: "books:read", expires: "soon" },
        "expires",
        '"soon" is neither a duration (90d, 12h, 2w) nor a date or date-time (2027-01-01, 2027-01-01T12:00:00Z)',
      ],
      [
        { name: "mobile", scope: "books:read", limit: "lots" },
        "limit",
        'limit "lots" is not a number of requests per second, minute, hour or day, such as 100/min (1 to 1000000000)',
      ],
    ];
    for (const [body, field, message] of refusals) {
      const answer = await call("POST", "/api/projects/shop/settings/keys", { body });
      expect({ body, status: answer.status, json: answer.json }).toEqual({
        body,
        status: 400,
        json: { message, problems: [{ path: [field], message }] },
      });
    }
    expect(existsSync(env) && readFileSync(env, "utf8")).not.toContain("API_KEY_");

    const made = await call("POST", "/api/projects/shop/settings/keys", {
      body: { name: "mobile", scope: "books:read", expires: "90d", limit: "100/min" },
    });
    expect(made.status).toBe(200);
    const secret = made.json.secret as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const line = /^API_KEY_MOBILE="?(.*?)"?$/m.exec(readFileSync(env, "utf8"))![1]!;
    expect(line).toMatch(/^sha256:[0-9a-f]{64};scope=books:read;expires=\d{4}-\d\d-\d\dT[\d:]+Z;limit=100\/min$/);
    expect(line).not.toContain(secret);
    expect(made.json.settings.scopedKeys).toEqual([
      { name: "mobile", scope: "books:read", limit: "100/min", expires: expect.any(String), expired: false },
    ]);
    expect((await call("GET", "/api/projects/shop/settings")).text).not.toContain(secret);

    // The restarted server took the key up: it reads, and may not write.
    const server = made.json.settings.server as { status: string; url: string };
    expect(server.status).toBe("running");
    const list = await fetch(`${server.url}/shop/books/v1/list`, { headers: { "x-api-signature": secret } });
    expect(list.status).toBe(200);
    const create = await fetch(`${server.url}/shop/books/v1/create`, {
      method: "POST",
      headers: { "x-api-signature": secret, "content-type": "application/json" },
      body: "{}",
    });
    expect(create.status).toBe(403);
    expect((await create.json()).message).toBe("This key may not create books.");

    expect(
      await call("POST", "/api/projects/shop/settings/keys", { body: { name: "mobile", scope: "books:read" } }),
    ).toMatchObject({
      status: 400,
      json: { problems: [{ path: ["name"] }] },
    });
    expect(await call("DELETE", "/api/projects/shop/settings/keys/tablet")).toMatchObject({
      status: 400,
      json: { message: "shop/.env has no key named tablet (its keys: mobile)" },
    });

    // A key whose scope names what the manifest no longer has (written by hand, or before a table
    // was dropped) is listed with what is stale in it, as `tablegen keys list` warns of it.
    writeFileSync(env, `${readFileSync(env, "utf8")}API_KEY_GONE="sha256:${"0".repeat(64)};scope=readers:read"\n`);
    expect((await call("GET", "/api/projects/shop/settings")).json.scopedKeys).toEqual([
      { name: "mobile", scope: "books:read", limit: "100/min", expires: expect.any(String), expired: false },
      {
        name: "gone",
        scope: "readers:read",
        expired: false,
        stale: 'scope entry "readers:read": readers is no table or query of shop',
      },
    ]);
    expect((await call("DELETE", "/api/projects/shop/settings/keys/gone")).status).toBe(200);
    const revoked = await call("DELETE", "/api/projects/shop/settings/keys/mobile");
    expect(revoked.status).toBe(200);
    expect(revoked.json.scopedKeys).toEqual([]);
    expect(readFileSync(env, "utf8")).not.toContain("API_KEY_MOBILE");
    const after = await fetch(`${revoked.json.server.url}/shop/books/v1/list`, {
      headers: { "x-api-signature": secret },
    });
    expect(after.status).toBe(401);
  });

  it("sets DATABASE_URL for the project's database, refusing what it cannot be", async () => {
    const cases: [unknown, string][] = [
      ["", "DATABASE_URL must not be empty"],
      [42, "DATABASE_URL must not be empty"],
      ['file:"x.db"', "DATABASE_URL must not hold quotes, spaces, backslashes or line breaks"],
      ["file:./a b.db", "DATABASE_URL must not hold quotes, spaces, backslashes or line breaks"],
      ["postgresql://localhost/db", 'DATABASE_URL of a SQLite project is a file: URL, such as "file:./data.db"'],
    ];
    for (const [url, message] of cases) {
      expect(await call("PUT", "/api/projects/shop/settings/database-url", { body: { url } })).toMatchObject({
        status: 400,
        json: { message },
      });
    }
    const saved = await call("PUT", "/api/projects/shop/settings/database-url", { body: { url: "file:./data.db" } });
    expect(saved.json).toMatchObject({ databaseUrl: "file:./data.db", databaseUrlFrom: "env file" });
  });

  it("wants a postgresql:// URL for a PostgreSQL project", async () => {
    expect((await events("/api/projects", { name: "pgshop", database: "postgresql", start: "blank" })).last.type).toBe(
      "done",
    );
    expect(
      await call("PUT", "/api/projects/pgshop/settings/database-url", { body: { url: "file:./data.db" } }),
    ).toMatchObject({
      status: 400,
      json: {
        message:
          'DATABASE_URL of a PostgreSQL project is a postgresql:// URL, such as "postgresql://user:password@localhost:5432/app"',
      },
    });
    const saved = await call("PUT", "/api/projects/pgshop/settings/database-url", {
      body: { url: "postgresql://app:s3cret@127.0.0.1:5432/pgshop" },
    });
    expect(saved.json).toMatchObject({ databaseUrl: "postgresql://app:•••@127.0.0.1:5432/pgshop" });
    expect(saved.text).not.toContain("s3cret");
    expect(await readFile(join(workspace, "pgshop", ".env"), "utf8")).toContain(
      'DATABASE_URL="postgresql://app:s3cret@127.0.0.1:5432/pgshop"',
    );
  });

  it("changes neither while the environment the studio started from sets it", async () => {
    process.env.API_SIGNATURE_KEY = "from-the-environment";
    process.env.DATABASE_URL = "postgresql://app:s3cret@db:5432/app";
    try {
      expect((await call("GET", "/api/projects/shop/settings")).json).toMatchObject({
        key: "from••••••••••••",
        keyFrom: "environment",
        databaseUrl: "postgresql://app:•••@db:5432/app",
        databaseUrlFrom: "environment",
      });
      expect(await call("POST", "/api/projects/shop/settings/key/rotate")).toMatchObject({
        status: 409,
        json: {
          message:
            "API_SIGNATURE_KEY is set in the environment tablegen studio was started from, which wins over shop/.env: change it there",
        },
      });
      expect(
        await call("PUT", "/api/projects/shop/settings/database-url", { body: { url: "file:./x.db" } }),
      ).toMatchObject({
        status: 409,
        json: {
          message:
            "DATABASE_URL is set in the environment tablegen studio was started from, which wins over shop/.env: change it there",
        },
      });
    } finally {
      delete process.env.API_SIGNATURE_KEY;
      delete process.env.DATABASE_URL;
    }
  });
});

describe("the AI page", () => {
  let fake: FakeOpenAI;
  afterAll(async () => {
    await fake?.close();
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });

  it("says how to configure a model when none is", async () => {
    expect((await call("GET", "/api/workspace")).json.ai).toEqual({
      configured: false,
      model: "gpt-4.1-mini",
      message: `${MISSING_KEY}. ${HOW_TO_CONFIGURE}`,
    });
    expect(await call("POST", "/api/projects/shop/ai", { body: { mode: "new", prompt: "a library" } })).toMatchObject({
      status: 400,
      json: { message: `${MISSING_KEY}. ${HOW_TO_CONFIGURE}` },
    });
  });

  it("drafts, revises, and accepts into the file with its comments; refuses what it cannot do", async () => {
    const current = parse(await readFile(manifestPath(), "utf8"));
    const withTags = {
      ...current,
      tables: { ...current.tables, tags: { fields: { label: { type: "TEXT", required: true } } } },
    };
    const withColour = {
      ...withTags,
      tables: { ...withTags.tables, tags: { fields: { label: { type: "TEXT", required: true }, colour: "TEXT" } } },
    };
    fake = await startFakeOpenAI([
      { status: 500, body: { error: { message: "the model is down", type: "server_error" } } },
      { content: toAiForm(withTags) },
      { content: toAiForm(withColour) },
    ]);
    process.env.OPENAI_API_KEY = "test";
    process.env.OPENAI_BASE_URL = fake.url;
    for (const [body, status, message] of [
      [{ mode: "rewrite", prompt: "x" }, 400, 'mode must be one of new, extend, revise, not "rewrite"'],
      [
        { mode: "extend", prompt: "  " },
        400,
        'The description is empty: say what the application does, e.g. "a lending library"',
      ],
      [
        { mode: "revise", prompt: "", draft: "x" },
        400,
        'The instructions are empty: say what should change, e.g. "add a tags table"',
      ],
      [{ mode: "revise", prompt: "more", draft: "nope" }, 404, 'No AI draft "nope" of shop'],
    ] as const) {
      expect(await call("POST", "/api/projects/shop/ai", { body })).toMatchObject({ status, json: { message } });
    }
    const down = await events("/api/projects/shop/ai", { mode: "extend", prompt: "add tags" });
    expect(down.last).toEqual(failure("the model server answered 500: the model is down"));

    const drafted = await events("/api/projects/shop/ai", { mode: "extend", prompt: "add tags" });
    expect(drafted.events[0]).toEqual({ type: "progress", text: "Drafting the manifest with gpt-4.1-mini…" });
    const draft = (drafted.last as { result: any }).result;
    expect(draft.changes).toEqual([{ kind: "added", what: "table tags (label)" }]);
    expect(draft.diff).toContain("+  tags:\n+    fields:\n+      label: { type: TEXT, required: true }\n");
    const revised = await events("/api/projects/shop/ai", {
      mode: "revise",
      prompt: "tags have a colour",
      draft: draft.id,
    });
    const next = (revised.last as { result: any }).result;
    expect(next.changes).toEqual([{ kind: "added", what: "table tags (label, colour)" }]);
    expect(fake.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: "user", content: "tags have a colour" });
    // The revised draft replaces the first.
    expect(await call("POST", `/api/projects/shop/ai/${draft.id}/accept`, { body: {} })).toMatchObject({
      status: 404,
      json: { message: `No AI draft "${draft.id}" of shop` },
    });
    const accepted = await call("POST", `/api/projects/shop/ai/${next.id}/accept`, { body: {} });
    expect(accepted.status).toBe(200);
    const text = await readFile(manifestPath(), "utf8");
    expect(parse(text).tables.tags.fields.colour).toBe("TEXT");
    expect(text).toContain("  # Kept by hand.\n  books:   # and this one\n");
    expect(await call("DELETE", `/api/projects/shop/ai/${next.id}`)).toMatchObject({
      status: 404,
      json: { message: `No AI draft "${next.id}" of shop` },
    });
  });

  it("creates a project from a description, as tablegen init --ai does", async () => {
    const drafted = {
      project: "whatever-the-model-says",
      tables: { members: { fields: { name: { type: "TEXT", required: true } } } },
    };
    // A model that fails leaves nothing behind: the folder is not there to block the next try.
    fake.queue({ status: 503, body: { error: { message: "overloaded", type: "server_error" } } });
    const failed = await events("/api/projects", { name: "club", database: "sqlite", start: "ai", prompt: "a club" });
    expect(failed.last).toEqual(failure("the model server answered 503: overloaded"));
    expect(existsSync(join(workspace, "club"))).toBe(false);
    fake.queue({ content: toAiForm(drafted) });
    const created = await events("/api/projects", { name: "club", database: "sqlite", start: "ai", prompt: "a club" });
    expect(created.events.map((event) => ("text" in event ? event.text : event.type))).toEqual([
      "Creating club as tablegen init does…",
      "Drafting the manifest with gpt-4.1-mini…",
      "Drafted a valid manifest with gpt-4.1-mini",
      expect.stringMatching(/^Project club: SQLite, API version v1\n\nTables \(1\)\n  members\n/),
      "Wrote club/tablegen.yaml, club/.env, club/.gitignore",
      "done",
    ]);
    const manifest = await readFile(join(workspace, "club", "tablegen.yaml"), "utf8");
    expect(manifest).toMatch(/^# Drafted by tablegen ai \(gpt-4\.1-mini\) from:\n#   a club\n/);
    expect(parse(manifest).project).toBe("club");
  });
});

describe("tablegen studio, the command", () => {
  it("says so when its browser app is not built", async () => {
    await expect(startStudio({ dir: workspace, port: 0, uiDir: join(workspace, "no-ui") })).rejects.toMatchObject({
      name: "UserError",
      message:
        "the studio's browser app is not built (no-ui/index.html is missing): run \"npm run build\" in tablegen's folder",
    });
  });

  const tablegen = (args: string[]) =>
    execa(process.execPath, [join(REPO, "bin", "tablegen.js"), ...args], { cwd: workspace, reject: false });

  it("refuses options and folders it cannot serve, in one line", async () => {
    const missing = join(workspace, "missing");
    const busy = await tablegen(["studio", ".", "--port", String(studio.port)]);
    for (const [result, message] of [
      [
        await tablegen(["studio", ".", "--port", "abc"]),
        'tablegen: --port must be a port number from 0 to 65535 (0: a free one), not "abc"',
      ],
      [await tablegen(["studio", missing]), "tablegen: missing: no such directory"],
      [busy, `tablegen: --port ${studio.port}: the port is in use (EADDRINUSE)`],
    ] as const) {
      expect(result.stderr).toBe(message);
      expect(result.exitCode).toBe(1);
    }
  });

  it("prints its address with the token, and stops the servers it started on SIGINT", async () => {
    await mkdir(join(workspace, "empty"), { recursive: true });
    const running = await startStudioProcess(workspace);
    expect(running.output()).toMatch(/^tablegen studio: http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}\n/);
    const cookie = `tablegen_studio_${running.port}=${running.token}`;
    const started = await new Promise<string>((resolve, reject) => {
      const outgoing = request(
        {
          host: "127.0.0.1",
          port: running.port,
          method: "POST",
          path: "/api/projects/shop/server/start",
          headers: { host: `127.0.0.1:${running.port}`, cookie, "content-type": "application/json" },
        },
        (incoming) => {
          let text = "";
          incoming.on("data", (chunk: Buffer) => (text += chunk.toString()));
          incoming.on("end", () => resolve(text));
        },
      );
      outgoing.on("error", reject);
      outgoing.end("{}");
    });
    const url = new URL(/"url":"(http:[^"]+)"/.exec(started)![1]!);
    const exited = once(running.process, "exit");
    running.process.kill("SIGINT");
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(running.output()).toContain("Stopping (SIGINT)…");
    const refused = await new Promise<string>((resolve) => {
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      socket.on("connect", () => (socket.destroy(), resolve("connected")));
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });
    expect(refused).toBe("ECONNREFUSED");
  });
});
