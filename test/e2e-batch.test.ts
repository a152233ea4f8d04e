import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { client, failure, type Client } from "./helpers/http.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// POST /{project}/{version}/batch (issue 28) on the generated blog server over real HTTP, both
// databases: writes in one transaction with `$ref`s to earlier results; a failure anywhere writes
// nothing and is answered as the operation alone would be, prefixed with its index; a malformed
// batch is one 400 naming every problem where it is; a key's scope per operation; 200 batches at
// once, none lost or mixed. Hooks inside a batch: test/e2e-custom.test.ts.

const KEY = "batch-key-0123456789";
const POSTS_WRITER = "posts-writer-secret-0123456789";
const postgresUrl = inject("postgresUrl");

type Values = Record<string, unknown>;
type Envelope<T> = { success: boolean; message: string; data: T };

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`batch on ${database}`, () => {
    let server: RunningServer;
    let api: Client;
    let writer: Client;

    const batch = (operations: unknown, version = "v1") => api.post(`/${version}/batch`, { operations });
    const list = async (path: string) => ((await api.get(path)).body as Envelope<Values[]>).data;
    const refused = async (body: unknown, status: number, message: string) => {
      const answer = await api.post("/v1/batch", body);
      expect(answer.status, answer.text).toBe(status);
      expect(answer.body).toEqual(failure(message));
    };

    beforeAll(async () => {
      const { dir } = await sharedExample("blog", database);
      const db = await exampleDatabase("blog", database);
      const hash = createHash("sha256").update(POSTS_WRITER).digest("hex");
      server = await startTranspiled(dir, {
        DATABASE_URL: db.url,
        API_SIGNATURE_KEY: KEY,
        API_KEY_WRITER: `sha256:${hash};scope=posts:write,users:read`,
      });
      api = client(`${server.url}/blog`, KEY);
      writer = client(`${server.url}/blog`, POSTS_WRITER);
    });

    afterAll(async () => {
      await server?.stop();
    });

    it("runs creates, updates and deletes in order, an earlier result's field standing for a $ref", async () => {
      const answer = await batch([
        { action: "create", table: "users", data: { name: "Ada", email: "ada@example.com" } },
        { action: "create", table: "categories", data: { name: "Tech" } },
        {
          action: "create",
          table: "posts",
          data: { title: "One", user_id: { $ref: "0.id" }, category_id: { $ref: "1.id" } },
        },
        { action: "create", table: "posts", data: { title: "Two", user_id: { $ref: "0.id" } } },
        { action: "update", table: "posts", id: { $ref: "3.id" }, data: { title: "Two, edited", rating: 4.5 } },
        { action: "delete", table: "posts", id: { $ref: "2.id" } },
      ]);
      expect(answer.status, answer.text).toBe(200);
      const { success, message, data } = answer.body as Envelope<Values[]>;
      expect([success, message]).toEqual([true, "Batch completed successfully."]);
      const [user, category, one, two, edited, deleted] = data;
      expect(user).toMatchObject({ name: "Ada", email: "ada@example.com", active: true });
      expect(category).toMatchObject({ name: "Tech" });
      expect(one).toMatchObject({ title: "One", user_id: user!.id, category_id: category!.id });
      expect(edited).toEqual({ ...two, title: "Two, edited", rating: 4.5 });
      expect(deleted).toEqual({ id: one!.id });
      // Committed: what the routes answer now.
      expect(await list("/posts/v1/list")).toEqual([edited]);
      // The results are the records each route would answer (v2 has no categories: its batch cannot name them).
      expect((await api.get(`/users/v1/show/${String(user!.id)}`)).body).toMatchObject({ data: user });
      const v2 = await batch([{ action: "create", table: "categories", data: { name: "x" } }], "v2");
      expect(v2.status).toBe(400);
      expect(v2.body).toEqual(failure("Invalid request: operations[0].table names no table of v2: categories"));
    });

    it("writes nothing when the last operation meets a unique value taken (409), prefixing its message", async () => {
      const users = (await list("/users/v1/list")).length;
      const posts = (await list("/posts/v1/list")).length;
      await refused(
        {
          operations: [
            { action: "create", table: "users", data: { name: "Bob", email: "bob@example.com" } },
            { action: "create", table: "posts", data: { title: "Lost", user_id: { $ref: "0.id" } } },
            { action: "create", table: "users", data: { name: "Ada again", email: "ada@example.com" } },
          ],
        },
        409,
        "operations[2]: Invalid request: email already exists",
      );
      expect(await list("/users/v1/list")).toHaveLength(users);
      expect(await list("/posts/v1/list")).toHaveLength(posts);
      // And the ids the rolled-back creates took are not answered by anything.
      expect(await list("/users/v1/list?name=Bob")).toEqual([]);
    });

    it("answers each failing operation as its route would: 400, 404, 409 restricted, all prefixed", async () => {
      const [ada] = await list("/users/v1/list");
      await refused(
        { operations: [{ action: "create", table: "posts", data: { user_id: ada!.id, title: "", rating: "5" } }] },
        400,
        "operations[0]: Invalid request: title must not be empty; rating must be a number",
      );
      await refused(
        { operations: [{ action: "create", table: "posts", data: { title: "Orphan", user_id: 999999 } }] },
        400,
        "operations[0]: Invalid request: user_id refers to no users record",
      );
      await refused(
        { operations: [{ action: "update", table: "posts", id: 999999, data: { title: "x" } }] },
        404,
        "operations[0]: Data not found",
      );
      await refused(
        { operations: [{ action: "update", table: "posts", id: "abc", data: { title: "x" } }] },
        404,
        "operations[0]: Data not found",
      );
      await refused(
        { operations: [{ action: "update", table: "users", id: ada!.id, data: {} }] },
        400,
        "operations[0]: Invalid request: body must name at least one field to change",
      );
      const [post] = await list("/posts/v1/list");
      const comment = await batch(
        [{ action: "create", table: "comments", data: { post_id: post!.id, author: "c", text: "t" } }],
        "v2",
      );
      expect(comment.status, comment.text).toBe(200);
      const restricted = await batch([{ action: "delete", table: "posts", id: post!.id }], "v2");
      expect(restricted.status).toBe(409);
      expect(restricted.body).toEqual(failure("operations[0]: Record is referenced by comments"));
      // A $ref to a field the earlier result does not have.
      await refused(
        {
          operations: [
            { action: "create", table: "users", data: { name: "Cy", email: "cy@example.com" } },
            { action: "create", table: "posts", data: { title: "x", user_id: { $ref: "0.nothing" } } },
          ],
        },
        400,
        "operations[1]: Invalid request: user_id refers to 0.nothing, which operation 0 did not answer",
      );
    });

    it("refuses a malformed batch with one 400 naming every problem where it is", async () => {
      await refused([], 400, "Invalid request: body must be a JSON object");
      await refused({}, 400, "Invalid request: operations is required");
      await refused({ operations: {} }, 400, "Invalid request: operations must be an array");
      await refused({ operations: [] }, 400, "Invalid request: operations must hold at least one operation");
      await refused(
        {
          extra: 1,
          operations: [
            "create",
            { action: "upsert", table: "users", data: {} },
            { action: "create", table: "nope", id: 3, data: [] },
            { action: "update", table: "posts", data: { title: "x" } },
            { action: "delete", table: "posts", id: true, data: {}, why: "x" },
            { action: "create", table: "posts", data: { user_id: { $ref: "9.id" }, title: { $ref: "x" } } },
            { action: "create", table: "posts", data: { user_id: { $ref: "0.id", more: 1 } } },
          ],
        },
        400,
        "Invalid request: unknown field extra; operations[0] must be an object; " +
          "operations[1].action must be create, update or delete; " +
          "operations[2].table names no table of v1: nope; operations[2].id cannot be given to a create; " +
          "operations[2].data must be an object; operations[3].id is required; " +
          "operations[4]: unknown field why; " +
          'operations[4].id must be an id, or {"$ref": "<index>.<field>"}; operations[4].data cannot be given to a delete; ' +
          "operations[5].data.user_id: $ref 9.id names no earlier operation (operation 9 is not before 5); " +
          'operations[5].data.title: $ref must be "<index>.<field>", like "0.id", not "x"; ' +
          'operations[6].data.user_id must be {"$ref": "<index>.<field>"}, naming an earlier operation\'s result and its field',
      );
      const many = Array.from({ length: 1001 }, (_, index) => ({
        action: "create",
        table: "categories",
        data: { name: `c${index}` },
      }));
      await refused({ operations: many }, 400, "Invalid request: operations holds 1001 operations, more than 1000");
      // 1,000 is allowed, and committed at once.
      const thousand = await batch(many.slice(0, 1000));
      expect(thousand.status, thousand.text).toBe(200);
      expect((thousand.body as Envelope<Values[]>).data).toHaveLength(1000);
      expect(await list("/categories/v1/list?name[in]=c0,c999&count=true")).toHaveLength(2);
    });

    it("checks each operation against the key's scope, and expand too", async () => {
      const [ada] = await list("/users/v1/list");
      const allowed = await writer.post("/v1/batch", {
        operations: [{ action: "create", table: "posts", data: { title: "By the writer", user_id: ada!.id } }],
      });
      expect(allowed.status, allowed.text).toBe(200);
      const refusal = await writer.post("/v1/batch", {
        operations: [
          { action: "create", table: "posts", data: { title: "Not kept", user_id: ada!.id } },
          { action: "update", table: "users", id: ada!.id, data: { name: "Eve" } },
        ],
      });
      expect(refusal.status).toBe(403);
      expect(refusal.body).toEqual(failure("operations[1]: This key may not update users."));
      expect(await list("/posts/v1/list?title=Not kept")).toEqual([]);
      // expand reads only what the key may read: the record a reference names (show), the records referring to one (list).
      const posts = await writer.get("/posts/v1/list?expand=user");
      expect(posts.status, posts.text).toBe(200);
      const categories = await writer.get("/posts/v1/list?expand=user,category");
      expect(categories.status).toBe(403);
      expect(categories.body).toEqual(failure("This key may not show categories."));
      const nested = await writer.get(`/users/v1/show/${String(ada!.id)}?expand=posts.category`);
      expect(nested.status).toBe(403);
      expect(nested.body).toEqual(failure("This key may not show categories."));
      expect((await writer.get(`/users/v1/show/${String(ada!.id)}?expand=posts`)).status).toBe(200);
      // Each write is an audit line of its own, with the key's name.
      await server.waitForOutput('"key":"writer","action":"create","table":"posts"');
    });

    it("runs 200 batches at once, each all or nothing, none lost or mixed", async () => {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          batch([
            { action: "create", table: "users", data: { name: `u${index}`, email: `u${index}@example.com` } },
            { action: "create", table: "posts", data: { title: `p${index}a`, user_id: { $ref: "0.id" } } },
            { action: "create", table: "posts", data: { title: `p${index}b`, user_id: { $ref: "0.id" } } },
            // Every tenth batch fails at its end: its user and posts are never written.
            ...(index % 10 === 9
              ? [{ action: "create", table: "users", data: { name: "dup", email: `u${index}@example.com` } }]
              : []),
          ]),
        ),
      );
      answers.forEach((answer, index) =>
        expect(answer.status, `${index}: ${answer.text}`).toBe(index % 10 === 9 ? 409 : 200),
      );
      const users = await list("/users/v1/list?name[contains]=u&limit=1000");
      const posts = await list("/posts/v1/list?title[contains]=p&limit=1000");
      const made = users.filter((user) => /^u\d+$/.test(String(user.name)));
      expect(made).toHaveLength(180);
      for (const user of made) {
        const index = String(user.name).slice(1);
        expect(Number(index) % 10).not.toBe(9);
        const own = posts.filter((post) => post.user_id === user.id).map((post) => post.title);
        expect(own.sort()).toEqual([`p${index}a`, `p${index}b`]);
      }
      expect(posts.filter((post) => /^p\d+[ab]$/.test(String(post.title)))).toHaveLength(360);
    });
  });
}
