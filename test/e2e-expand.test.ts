import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { client, failure, type Client } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// expand (issue 28) on the generated blog server over real HTTP, both databases: the record a
// reference names, the records referring to one (at most 100, in id order), nesting with dots,
// every list parameter, keyset paging, the streamed whole table; what each version has; the
// statements each page costs, counted in the server's own trace (SQL_LOG=on), so no N+1; every 400.

const KEY = "expand-key-0123456789";
const postgresUrl = inject("postgresUrl");

type Values = Record<string, unknown>;
type Envelope<T> = { success: boolean; message: string; data: T };

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`expand on ${database}`, () => {
    let server: RunningServer;
    let api: Client;
    let db: LiveDatabase;
    let users: Values[];
    let category: Values;
    let posts: Values[];
    let comments: Values[];

    const data = async <T = Values[]>(path: string) => {
      const answer = await api.get(path);
      expect(answer.status, answer.text).toBe(200);
      return (answer.body as Envelope<T>).data;
    };
    const refused = async (path: string, message: string) => {
      const answer = await api.get(path);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toEqual(failure(message));
    };

    // Statements the server ran for a request: its SQL_LOG lines between the request and a marker's.
    let markers = 0;
    const statementsOf = async (path: string): Promise<string[]> => {
      const from = server.output().length;
      const answer = await api.get(path);
      expect(answer.status, answer.text).toBe(200);
      const marker = `marker-${++markers}-${database}`;
      expect((await api.get(`/users/v1/list?name=${marker}`)).status).toBe(200);
      // The marker's own statement names its value on SQLite (its trace expands the parameters); on
      // PostgreSQL, the statement's parameters follow its text.
      await server.waitForOutput(marker);
      const lines = server.output().slice(from).split("\n");
      const end = lines.findIndex((line) => line.includes(marker));
      return lines.slice(0, end).filter((line) => line.startsWith("sql: "));
    };

    beforeAll(async () => {
      const { dir } = await sharedExample("blog", database);
      db = await exampleDatabase("blog", database);
      server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, SQL_LOG: "on" });
      api = client(`${server.url}/blog`, KEY);
      // Two users, a category, five posts (one without a category, none by the second user but one),
      // and 102 comments on the first post, 1 on the second: made in one batch.
      const operations: Values[] = [
        { action: "create", table: "users", data: { name: "Ada", email: "ada@example.com" } },
        { action: "create", table: "users", data: { name: "Bob", email: "bob@example.com" } },
        { action: "create", table: "categories", data: { name: "Tech" } },
      ];
      const titles = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"];
      titles.forEach((title, index) =>
        operations.push({
          action: "create",
          table: "posts",
          data: {
            title,
            rating: index,
            user_id: { $ref: index === 4 ? "1.id" : "0.id" },
            category_id: index === 1 ? null : { $ref: "2.id" },
          },
        }),
      );
      const created = await api.post("/v1/batch", { operations });
      expect(created.status, created.text).toBe(200);
      const results = (created.body as Envelope<Values[]>).data;
      users = results.slice(0, 2);
      category = results[2]!;
      posts = results.slice(3);
      const commentOperations = Array.from({ length: 103 }, (_, index) => ({
        action: "create",
        table: "comments",
        data: { post_id: posts[index === 102 ? 1 : 0]!.id, author: `c${index}`, text: "Nice" },
      }));
      const made = await api.post("/v2/batch", { operations: commentOperations });
      expect(made.status, made.text).toBe(200);
      comments = (made.body as Envelope<Values[]>).data;
    });

    afterAll(async () => {
      await server?.stop();
    });

    it("embeds the record a reference names under its name without _id, and null for none", async () => {
      const records = await data("/posts/v1/list?expand=user,category");
      expect(records.map((record) => record.id)).toEqual(posts.map((post) => post.id));
      const [first, second, , , fifth] = records;
      expect(first).toEqual({ ...posts[0], user: users[0], category });
      expect(second!.category).toBeNull();
      expect(second!.category_id).toBeNull();
      expect(fifth!.user).toEqual(users[1]);
      // Show too; the id field stays beside the record it names.
      const shown = await data<Values>(`/posts/v1/show/${String(posts[0]!.id)}?expand=category`);
      expect(shown).toEqual({ ...posts[0], category });
      // Without expand, the same bytes as before.
      expect((await api.get("/posts/v1/list")).text).toBe(
        JSON.stringify({ success: true, message: "Data found.", data: posts }),
      );
    });

    it("embeds the records referring to one, at most 100 each, in id order", async () => {
      const [ada, bob] = await data("/users/v1/list?expand=posts");
      expect((ada!.posts as Values[]).map((post) => post.id)).toEqual(posts.slice(0, 4).map((post) => post.id));
      expect(bob!.posts).toEqual([posts[4]]);
      const onFirst = (await data<Values>(`/posts/v2/show/${String(posts[0]!.id)}?expand=comments`))
        .comments as Values[];
      expect(onFirst).toHaveLength(100);
      expect(onFirst).toEqual(comments.slice(0, 100));
      const page = await data("/posts/v2/list?expand=comments&limit=3");
      expect(page.map((post) => (post.comments as Values[]).length)).toEqual([100, 1, 0]);
      expect((page[1]!.comments as Values[])[0]).toEqual(comments[102]);
    });

    it("nests with dots, up to three levels, each level once per page", async () => {
      const comment = await data<Values>(`/comments/v2/show/${String(comments[102]!.id)}?expand=post.user.posts`);
      const post = comment.post as Values;
      expect(post.id).toBe(posts[1]!.id);
      expect(post.comments).toBeUndefined();
      const user = post.user as Values;
      expect(user.id).toBe(users[0]!.id);
      expect((user.posts as Values[]).map((each) => each.id)).toEqual(posts.slice(0, 4).map((each) => each.id));
      // A relation named on its own and under another merge: user once, with its posts.
      const [first] = await data("/posts/v1/list?expand=user,user.posts,category.posts&limit=1");
      expect(Object.keys(first!)).toEqual([...Object.keys(posts[0]!), "user", "category"]);
      expect(((first!.category as Values).posts as Values[]).length).toBe(4);
    });

    it("works with filters, sort, count, offset and keyset paging, keeping Link and X-Total-Count", async () => {
      const sorted = await api.get(
        "/posts/v1/list?category_id[null]=false&sort=-rating&limit=2&count=true&expand=user",
      );
      expect(sorted.status, sorted.text).toBe(200);
      expect(sorted.headers.get("x-total-count")).toBe("4");
      const records = (sorted.body as Envelope<Values[]>).data;
      expect(records.map((record) => record.title)).toEqual(["Epsilon", "Delta"]);
      expect(records.map((record) => (record.user as Values).name)).toEqual(["Bob", "Ada"]);
      expect(sorted.headers.get("link")).toBe(
        '</blog/posts/v1/list?category_id%5Bnull%5D=false&sort=-rating&limit=2&count=true&expand=user&offset=2>; rel="next"',
      );
      const keyset = await api.get(`/posts/v1/list?after=${String(posts[2]!.id)}&limit=1&expand=category`);
      expect((keyset.body as Envelope<Values[]>).data).toEqual([{ ...posts[3], category }]);
      expect(keyset.headers.get("link")).toContain(`after=${String(posts[3]!.id)}`);
      expect(keyset.headers.get("link")).toContain("expand=category");
    });

    it("costs one statement per relation and level for a page, never one per record", async () => {
      const plain = await statementsOf("/posts/v1/list?limit=100");
      expect(plain).toHaveLength(1);
      const expanded = await statementsOf("/posts/v1/list?limit=100&expand=user,category");
      expect(expanded).toHaveLength(3);
      expect(expanded[1]).toMatch(/FROM "users" WHERE "id"/);
      expect(expanded[2]).toMatch(/FROM "categories" WHERE "id"/);
      const nested = await statementsOf("/comments/v2/list?expand=post.user.posts");
      expect(nested).toHaveLength(4);
      const reverse = await statementsOf("/users/v1/list?expand=posts.category");
      expect(reverse).toHaveLength(3);
    });

    it("streams the whole table a batch at a time, each batch expanded with its own statements", async () => {
      // 1,500 more posts by Bob: more than one batch on both databases (SQLite 250, PostgreSQL 1,000).
      await db.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) " +
          `INSERT INTO posts (title, user_id) SELECT 'P' || i, ${String(users[1]!.id)} FROM n`,
      );
      const statements = await statementsOf("/posts/v1/list?expand=user");
      const answer = await api.get("/posts/v1/list?expand=user");
      const records = (answer.body as Envelope<Values[]>).data;
      expect(records).toHaveLength(1505);
      expect(records.every((record) => (record.user as Values).id === record.user_id)).toBe(true);
      expect(records.at(-1)!.user).toEqual(users[1]);
      const batches = database === "sqlite" ? Math.ceil(1505 / 250) : Math.ceil(1505 / 1000);
      expect(statements).toHaveLength(2 * batches);
      await db.exec(`DELETE FROM posts WHERE title LIKE 'P%' AND user_id = ${String(users[1]!.id)}`);
    });

    it("has what each version has: v2 has no categories, v1 no comments", async () => {
      await refused("/posts/v2/list?expand=category", "Invalid request: unknown expand name category");
      await refused("/posts/v1/list?expand=comments", "Invalid request: unknown expand name comments");
      await refused(
        "/categories/v1/show/1?expand=posts.comments",
        "Invalid request: unknown expand name posts.comments",
      );
      expect(await data(`/categories/v1/list?expand=posts`)).toHaveLength(1);
    });

    it("refuses unknown, repeated and too deep names, one 400 naming every problem with the list's own", async () => {
      await refused(
        "/posts/v1/list?expand=user,author,user,user.posts.user.posts,&limit=0",
        "Invalid request: unknown expand name author; expand names user twice; " +
          "expand user.posts.user.posts is deeper than 3 levels; unknown expand name (empty); " +
          "limit must be an integer from 1 to 1000",
      );
      await refused(
        `/posts/v1/show/${String(posts[0]!.id)}?expand=constructor`,
        "Invalid request: unknown expand name constructor",
      );
      await refused(
        `/posts/v1/show/${String(posts[0]!.id)}?expand=user&expand=user`,
        "Invalid request: expand must be given once",
      );
      await refused("/posts/v1/list?expand=user&expand=category", "Invalid request: expand must be given once");
      // A missing record is a 404 whatever it expands.
      const missing = await api.get("/posts/v1/show/999999?expand=user");
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(failure("Data not found"));
    });
  });
}
