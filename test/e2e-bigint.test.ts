import { join } from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { execa } from "execa";
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "./helpers/generate.ts";
import { client, failure, type Client } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { readDocuments } from "./helpers/openapi.ts";
import { startServer, type RunningServer } from "./helpers/server.ts";
import { typeCheck } from "./helpers/typecheck.ts";
import { postgresUrl, project, tablegen, type Envelope } from "./migrate/scenario.ts";

// Issue 30, 64-bit ids: a PostgreSQL table with `id: bigint` (BIGSERIAL) and the references to it
// travel as JSON strings of digits, so that no client loses digits beyond 2^53. The sequences start
// above 2^53, where a JavaScript number would round 9007199254740993 to 9007199254740992: every id
// and reference must come back exactly, through every route, expand, batch and a typed client.

const MANIFEST = `project: shop
tables:
  users:
    id: bigint
    fields:
      name: { type: TEXT, required: true }
  posts:
    id: bigint
    fields:
      title: { type: TEXT, required: true }
      user_id: { type: NUMBER, required: true, references: users }
  notes:
    fields:
      body: TEXT
      user_id: { type: NUMBER, references: users, onDelete: setNull }
queries:
  authors:
    sql: SELECT p.id, p.user_id, u.name, count(*) OVER () AS total FROM posts p JOIN users u ON u.id = p.user_id ORDER BY p.id
  posts_of:
    params: { user: TEXT }
    sql: SELECT id, title FROM posts WHERE user_id = :user ORDER BY id
`;

const KEY = "bigint-key-0123456789";
/** 2^53 + 1: the first integer a JavaScript number cannot hold. */
const ABOVE = 9007199254740993n;
const big = (offset: number) => String(ABOVE + BigInt(offset));

let dir: string;
let db: LiveDatabase;
let server: RunningServer | undefined;
let api: Client;

type Row = Record<string, unknown>;
const data = <T = Row>(answer: { body: unknown }) => (answer.body as Envelope<T>).data;

describe.skipIf(!postgresUrl)("bigint ids on PostgreSQL", () => {
  beforeAll(async () => {
    ({ dir, db } = await project("postgresql", MANIFEST));
    for (const command of ["generate", "migrate"]) {
      const result = await tablegen([command], dir);
      if (result.exitCode !== 0) throw new Error(`tablegen ${command}: ${result.stderr}`);
    }
    // Ids above 2^53, the users' and posts' apart, so that a join on the wrong id finds nothing.
    await db.exec(
      `ALTER SEQUENCE "users_id_seq" RESTART WITH ${ABOVE}; ALTER SEQUENCE "posts_id_seq" RESTART WITH ${ABOVE + 1000n}`,
    );
    server = await startServer(join(dir, "server"), { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
    api = client(`${server.url}/shop`, KEY);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const create = async (table: string, body: Row) => {
    const answer = await api.post(`/${table}/v1/create`, body);
    expect(answer.status, answer.text).toBe(201);
    return data(answer);
  };

  it("creates, shows, lists, updates and deletes records whose ids are above 2^53, exactly", async () => {
    const ada = await create("users", { name: "Ada" });
    expect(ada).toEqual({ id: big(0), name: "Ada" });
    const grace = await create("users", { name: "Grace" });
    expect(grace.id).toBe(big(1));
    // The answer's text holds the digits as a string: no JSON parser can round them.
    const shown = await api.get(`/users/v1/show/${big(0)}`);
    expect(shown.text).toContain(`"id":"${big(0)}"`);
    expect(data(shown)).toEqual({ id: big(0), name: "Ada" });

    const post = await create("posts", { title: "First", user_id: big(1) });
    expect(post).toEqual({ id: big(1000), title: "First", user_id: big(1) });
    const second = await create("posts", { title: "Second", user_id: big(0) });
    const third = await create("posts", { title: "Third", user_id: big(1) });
    expect([second.id, third.id]).toEqual([big(1001), big(1002)]);

    const updated = await api.post(`/posts/v1/update/${big(1001)}`, { user_id: big(1) });
    expect(updated.status, updated.text).toBe(200);
    expect(data(updated)).toEqual({ id: big(1001), title: "Second", user_id: big(1) });
    expect(data(await api.post(`/posts/v1/update/${big(1001)}`, { user_id: big(0) }))).toMatchObject({
      user_id: big(0),
    });

    const extra = await create("users", { name: "Temp" });
    const deleted = await api.del(`/users/v1/delete/${extra.id as string}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await api.get(`/users/v1/show/${extra.id as string}`)).status).toBe(404);
  });

  it("lists by id and reference: filters, sorts and keyset pages compare the numbers, not their text", async () => {
    // The whole table, streamed as PostgreSQL writes its JSON.
    const whole = await api.get("/posts/v1/list");
    expect(whole.text).toContain(`"id":"${big(1000)}"`);
    expect(data<Row[]>(whole).map((post) => post.id)).toEqual([big(1000), big(1001), big(1002)]);
    expect(data<Row[]>(await api.get(`/posts/v1/list?id=${big(1001)}`))).toEqual([
      { id: big(1001), title: "Second", user_id: big(0) },
    ]);
    expect(data<Row[]>(await api.get(`/posts/v1/list?id[gt]=${big(1000)}`)).map((post) => post.id)).toEqual([
      big(1001),
      big(1002),
    ]);
    expect(data<Row[]>(await api.get(`/posts/v1/list?user_id=${big(1)}`)).map((post) => post.id)).toEqual([
      big(1000),
      big(1002),
    ]);
    expect(
      data<Row[]>(await api.get(`/posts/v1/list?user_id[in]=${big(0)},${big(1)}&sort=-user_id`)).map((post) => [
        post.user_id,
        post.id,
      ]),
    ).toEqual([
      [big(1), big(1000)],
      [big(1), big(1002)],
      [big(0), big(1001)],
    ]);
    const last = await api.get("/posts/v1/list?sort=-id&limit=2");
    expect(data<Row[]>(last).map((post) => post.id)).toEqual([big(1002), big(1001)]);

    // Keyset paging: `after` an id above 2^53, and the Link header's next page.
    const page = await api.get(`/posts/v1/list?limit=1&after=${big(1000)}`);
    expect(data<Row[]>(page).map((post) => post.id)).toEqual([big(1001)]);
    expect(page.headers.get("link")).toContain(`after=${big(1001)}`);
    const back = await api.get(`/posts/v1/list?sort=-id&after=${big(1002)}`);
    expect(data<Row[]>(back).map((post) => post.id)).toEqual([big(1001), big(1000)]);

    // Ids of fewer digits (as a distributed SQL engine's may be) order as numbers: 9, 10, 2^53 + …,
    // where their text would order "10", "9", "9007…". Streamed, paged, sorted and `after` alike.
    await db.exec(`INSERT INTO "posts" ("id", "title", "user_id") VALUES (9, 'Nine', ${ABOVE}), (10, 'Ten', ${ABOVE})`);
    const ids = async (query: string) => data<Row[]>(await api.get(`/posts/v1/list${query}`)).map((post) => post.id);
    expect(await ids("")).toEqual(["9", "10", big(1000), big(1001), big(1002)]);
    expect(await ids("?sort=id&limit=3")).toEqual(["9", "10", big(1000)]);
    expect(await ids("?sort=-id&after=" + big(1000))).toEqual(["10", "9"]);
    expect(await ids("?after=9&limit=2")).toEqual(["10", big(1000)]);
    expect(await ids("?id[lt]=" + big(1000))).toEqual(["9", "10"]);
    expect(await ids(`?user_id=${big(0)}&sort=title`)).toEqual(["9", big(1001), "10"]);

    // A whole table of more than one batch (1,000 records): the first as a page, the next streamed
    // by PostgreSQL's JSON (its own statement), both in the numbers' order.
    await db.exec(
      `INSERT INTO "posts" ("id", "title", "user_id") SELECT g, 'Filler', ${ABOVE} FROM generate_series(100, 1097) AS g;
       INSERT INTO "posts" ("id", "title", "user_id") VALUES (5000, 'x', ${ABOVE}), (5001, 'x', ${ABOVE}), (10000, 'x', ${ABOVE})`,
    );
    const streamed = await ids("");
    expect(streamed).toHaveLength(1006);
    expect(streamed.slice(0, 3)).toEqual(["9", "10", "100"]);
    expect(streamed.slice(998)).toEqual(["1096", "1097", "5000", "5001", "10000", big(1000), big(1001), big(1002)]);
    await db.exec(`DELETE FROM "posts" WHERE "id" BETWEEN 100 AND 10000`);
  });

  it("expands a bigint reference and the records referring to a bigint id", async () => {
    const note = await create("notes", { body: "hi", user_id: big(1) });
    expect(note).toEqual({ id: 1, body: "hi", user_id: big(1) });
    const shown = data(await api.get(`/notes/v1/show/${note.id as number}?expand=user`));
    expect(shown.user).toEqual({ id: big(1), name: "Grace" });
    const users = data<Row[]>(await api.get("/users/v1/list?expand=posts,notes"));
    const grace = users.find((user) => user.id === big(1))!;
    expect((grace.posts as Row[]).map((post) => post.id)).toEqual([big(1000), big(1002)]);
    expect(grace.notes).toEqual([{ id: 1, body: "hi", user_id: big(1) }]);
    const posts = data<Row[]>(await api.get(`/posts/v1/list?expand=user.notes&id=${big(1002)}`));
    expect(posts[0]!.user).toEqual({ id: big(1), name: "Grace", notes: [{ id: 1, body: "hi", user_id: big(1) }] });
    // The records referring to Ada, in the order of their ids as numbers.
    const ada = data(await api.get(`/users/v1/show/${big(0)}?expand=posts`));
    expect((ada.posts as Row[]).map((post) => post.id)).toEqual(["9", "10", big(1001)]);
    for (const id of ["9", "10"])
      expect((await api.del(`/posts/v1/delete/${id}`)).body).toMatchObject({ success: true });
  });

  it("runs batches whose $refs carry bigint ids, and answers a delete with the id as a string", async () => {
    const answer = await api.post("/v1/batch", {
      operations: [
        { action: "create", table: "users", data: { name: "Linus" } },
        { action: "create", table: "posts", data: { title: "Batched", user_id: { $ref: "0.id" } } },
        { action: "update", table: "posts", id: { $ref: "1.id" }, data: { title: "Batched again" } },
        { action: "delete", table: "posts", id: { $ref: "1.id" } },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    const [user, post, updated, deleted] = data<Row[]>(answer);
    expect(user).toEqual({ id: big(3), name: "Linus" });
    expect(post).toEqual({ id: big(1003), title: "Batched", user_id: big(3) });
    expect(updated).toEqual({ id: big(1003), title: "Batched again", user_id: big(3) });
    expect(deleted).toEqual({ id: big(1003) });
    // Creates of one table together (PostgreSQL: one statement, int8 arrays).
    const many = await api.post("/v1/batch", {
      operations: [
        { action: "create", table: "posts", data: { title: "a", user_id: big(3) } },
        { action: "create", table: "posts", data: { title: "b", user_id: big(0) } },
      ],
    });
    expect(many.status, many.text).toBe(200);
    expect(data<Row[]>(many)).toEqual([
      { id: big(1004), title: "a", user_id: big(3) },
      { id: big(1005), title: "b", user_id: big(0) },
    ]);
  });

  it("answers a custom query's bigint columns as strings, its other integers as numbers", async () => {
    const rows = data<Row[]>(await api.get("/v1/authors"));
    expect(rows[0]).toEqual({ id: big(1000), user_id: big(1), name: "Grace", total: 5 });
    // A parameter compared with a bigint is TEXT: bound as its digits, read by PostgreSQL as int8.
    const of = await api.get(`/v1/posts_of?user=${big(1)}`);
    expect(data<Row[]>(of).map((post) => post.id)).toEqual([big(1000), big(1002)]);
    const none = await api.get("/v1/posts_of?user=abc");
    expect(none.status).toBe(400);
    expect(none.body).toEqual(failure("Invalid request: user is not valid for this query"));
  });

  it("refuses what is no 64-bit integer in digits, with the contract's messages", async () => {
    const refused = async (path: string, body: unknown, message: string) => {
      const answer = await api.post(path, body);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toEqual(failure(message));
    };
    const message = "Invalid request: user_id must be a 64-bit integer as a string of digits";
    await refused("/posts/v1/create", { title: "x", user_id: 5 }, message);
    await refused("/posts/v1/create", { title: "x", user_id: "abc" }, message);
    await refused("/posts/v1/create", { title: "x", user_id: "1.5" }, message);
    await refused("/posts/v1/create", { title: "x", user_id: "9223372036854775808" }, message);
    await refused("/notes/v1/create", { user_id: "-9223372036854775809" }, message);
    await refused(`/posts/v1/update/${big(1000)}`, { user_id: "" }, message);
    await refused(
      "/v1/batch",
      { operations: [{ action: "create", table: "posts", data: { title: "x", user_id: 1 } }] },
      `operations[0]: ${message}`,
    );
    // A bigint id given as a JSON number beyond 2^53 has lost digits in the parser already.
    const rounded = await api.request("POST", "/v1/batch", {
      raw: `{"operations": [{"action": "delete", "table": "posts", "id": ${big(1000)}}]}`,
      headers: { "content-type": "application/json" },
    });
    expect(rounded.status, rounded.text).toBe(400);
    expect(rounded.body).toEqual(
      failure("operations[0]: Invalid request: id must be a 64-bit integer as a string of digits"),
    );
    // A reference to no record, within range: the contract's 400 for a missing referenced record.
    const missing = await api.post("/posts/v1/create", { title: "x", user_id: "9223372036854775807" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(failure("Invalid request: user_id refers to no users record"));

    const listed = async (query: string, message: string) => {
      const answer = await api.get(`/posts/v1/list?${query}`);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toEqual(failure(`Invalid request: ${message}`));
    };
    await listed("user_id=abc", "user_id must be a 64-bit integer");
    await listed("id[gt]=9223372036854775808", "id[gt] must be a 64-bit integer");
    await listed("after=1.5", "after must be a 64-bit integer");
    await listed("user_id[in]=1,x", "user_id[in] must be a list of 64-bit integers, separated by commas");

    // A path id no record can have is a missing record, as on every table: 404.
    for (const id of ["abc", "1.5", "9223372036854775808", "1e3"]) {
      const answer = await api.get(`/users/v1/show/${id}`);
      expect(answer.status, id).toBe(404);
      expect(answer.body).toEqual(failure("Data not found"));
    }
    expect((await api.del("/users/v1/delete/99999999999999999999")).status).toBe(404);
  });

  it("types bigint ids and references as strings in the server's code, hooks and README, strict tsc clean", async () => {
    const server = join(dir, "server");
    expect(await readFile(join(server, "src", "schemas", "posts.ts"), "utf8")).toContain(
      "export type PostsRecord = {\n  id: string;\n  title: string;\n  user_id: string;\n};",
    );
    expect(await readFile(join(server, "README.md"), "utf8")).toContain(
      "Fields: id (bigint, a 64-bit integer as a string of digits), title (TEXT, required), " +
        "user_id (NUMBER, a 64-bit integer as a string of digits, required).",
    );
    expect(await readFile(join(server, "src", "hooks.ts"), "utf8")).toContain(
      "posts: TableHooks<PostsInput, PostsRecord, string>;",
    );
    // Every module but src/prisma.ts, the Prisma Client's export for your own code, which needs the
    // client generated (`npm install`; test/typecheck.test.ts checks it on the examples).
    const config = join(server, "tsconfig.bigint.json");
    await writeFile(config, JSON.stringify({ extends: "./tsconfig.json", exclude: ["src/prisma.ts"] }));
    expect(typeCheck(config)).toEqual([]);
  });

  it("documents bigint ids and references as strings of digits, and a typed client types them so", async () => {
    const [document] = [...readDocuments(join(dir, "server")).values()];
    const schemas = document!.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    expect(schemas.UsersRecord!.properties.id).toEqual({
      type: "string",
      format: "int64",
      pattern: "^-?[0-9]+$",
      examples: ["1"],
    });
    expect(schemas.PostsRecord!.properties.user_id).toEqual({
      type: "string",
      format: "int64",
      pattern: "^-?[0-9]+$",
      examples: ["1"],
    });
    expect(schemas.NotesRecord!.properties.user_id).toMatchObject({ type: ["string", "null"], format: "int64" });
    const show = (document!.paths as Record<string, Record<string, { parameters: Row[] }>>)["/shop/users/v1/show/{id}"]!
      .get!;
    expect(show.parameters.find((parameter) => parameter.name === "id")).toMatchObject({
      in: "path",
      schema: { type: "string", format: "int64", pattern: "^-?[0-9]+$" },
      example: "1",
    });

    // openapi-typescript's types: strings; openapi-fetch, with them, reads the digits exactly.
    const types = (
      await execa(process.execPath, [
        join(REPO, "node_modules", "openapi-typescript/bin/cli.js"),
        join(dir, "server", "openapi", "v1.json"),
      ])
    ).stdout;
    const record = (name: string) =>
      new RegExp(`${name}: \\{([^}]*)\\}`)
        .exec(types)![1]!
        .replace(/\/\*\*[\s\S]*?\*\//g, "")
        .replace(/\s+/g, " ")
        .trim();
    expect(record("PostsRecord")).toBe("id: string; title: string; user_id: string;");
    expect(record("NotesRecord")).toBe("id: number; body: string | null; user_id: string | null;");
    const typed = createClient<{
      "/shop/posts/v1/show/{id}": {
        get: {
          parameters: { path: { id: string } };
          responses: { 200: { content: { "application/json": { data: { id: string; user_id: string } } } } };
        };
      };
    }>({ baseUrl: server!.url, headers: { "x-api-signature": KEY } });
    const { data: shown } = await typed.GET("/shop/posts/v1/show/{id}", { params: { path: { id: big(1000) } } });
    expect(shown?.data).toMatchObject({ id: big(1000), user_id: big(1) });
  });
});
