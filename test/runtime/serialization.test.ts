import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Client } from "../helpers/http.ts";
import { startTranspiled, type RunningServer } from "../helpers/server.ts";
import { exampleDatabase, sharedExample } from "../helpers/shared-examples.ts";

// What the generated server's compiled response serializers write, checked on the raw response
// text over real HTTP (the SQLite blog example), against CONTRACT.md §3 "Records": objects keyed by
// field name in the manifest's order with id first, BOOLEAN as JSON booleans, DATETIME as
// YYYY-MM-DDTHH:MM:SSZ, NUMBER as JSON numbers, a uuid id as a lowercase UUID string, every field
// present (null when unset), and the envelope exactly {success, message, data}.

const KEY = "serialization-key";
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: RunningServer;
let api: Client;
let db: Database.Database;

/** The exact text of a success envelope: JSON.stringify keeps key order, so equal text means equal order. */
const envelope = (message: string, data: unknown) => JSON.stringify({ success: true, message, data });

async function created(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await api.post(path, body);
  expect(answer.status, answer.text).toBe(201);
  return (answer.body as { data: Record<string, unknown> }).data;
}

beforeAll(async () => {
  const { dir } = await sharedExample("blog");
  const { url } = await exampleDatabase("blog");
  const env = { DATABASE_URL: url, API_SIGNATURE_KEY: KEY };
  server = await startTranspiled(dir, env);
  api = client(`${server.url}/blog`, KEY);
  db = new Database(url.slice("file:".length));
});

afterAll(async () => {
  db?.close();
  await server?.stop();
});

describe("records", () => {
  it("writes every field in the manifest's order, id first, unset optional fields as null", async () => {
    const answer = await api.post("/users/v1/create", { name: "Ada", email: "ada@example.com" });
    expect(answer.status).toBe(201);
    const { data } = answer.body as { data: { id: number; created_at: string } };
    expect(data.created_at).toMatch(DATETIME);
    expect(answer.text).toBe(
      envelope("Record created successfully.", {
        id: data.id,
        name: "Ada",
        email: "ada@example.com",
        phone: null,
        bio: null,
        active: true,
        created_at: data.created_at,
      }),
    );
    expect(answer.text).toContain(`{"id":${data.id},"name":"Ada",`);
    expect(answer.text).toContain(`"phone":null,"bio":null,"active":true,`);
  });

  it("writes stored 0/1 booleans as false/true", async () => {
    const user = await created("/users/v1/create", { name: "Off", email: "off@example.com", active: false });
    expect(db.prepare(`SELECT "active" FROM "users" WHERE "id" = ?`).pluck().get(user.id)).toBe(0);
    const show = await api.get(`/users/v1/show/${user.id}`);
    expect(show.text).toContain(`"active":false,`);

    const update = await api.post(`/users/v1/update/${user.id}`, { active: true });
    expect(db.prepare(`SELECT "active" FROM "users" WHERE "id" = ?`).pluck().get(user.id)).toBe(1);
    expect(update.text).toContain(`"active":true,`);
  });

  it("writes date-times as UTC YYYY-MM-DDTHH:MM:SSZ, without fractional seconds", async () => {
    const user = await created("/users/v1/create", { name: "Tz", email: "tz@example.com" });
    const post = await created("/posts/v1/create", {
      title: "Offset",
      user_id: user.id,
      published_at: "2024-03-10T14:30:45.678+02:00",
    });
    expect(post.published_at).toBe("2024-03-10T12:30:45Z");

    // A value with milliseconds, as Prisma Client stores it, still comes back in whole seconds.
    db.prepare(`UPDATE "posts" SET "published_at" = '2024-03-10T12:30:45.999+00:00' WHERE "id" = ?`).run(post.id);
    const show = await api.get(`/posts/v1/show/${post.id}`);
    expect(show.text).toContain(`"published_at":"2024-03-10T12:30:45Z"}`);
  });

  it("writes ids and references as integers, and NUMBER fields with their decimals", async () => {
    const user = await created("/users/v1/create", { name: "Num", email: "num@example.com" });
    const post = await created("/posts/v1/create", { title: "Rated", user_id: user.id, rating: 4.25 });
    const show = await api.get(`/posts/v1/show/${post.id}`);
    expect(show.text).toBe(
      envelope("Data found.", {
        id: post.id,
        title: "Rated",
        body: null,
        published: false,
        rating: 4.25,
        user_id: user.id,
        category_id: null,
        published_at: null,
      }),
    );
    expect(show.text).toMatch(/^\{"success":true,"message":"Data found\.","data":\{"id":\d+,"title":"Rated",/);
    expect(show.text).toContain(`"rating":4.25,"user_id":${user.id},`);

    const whole = await api.post(`/posts/v1/update/${post.id}`, { rating: -3 });
    expect(whole.text).toContain(`"rating":-3,`);
    const tiny = await api.post(`/posts/v1/update/${post.id}`, { rating: 0.1 });
    expect(tiny.text).toContain(`"rating":0.1,`);
  });

  it("writes a uuid id, and a reference to it, as a lowercase UUID string", async () => {
    const answer = await api.post("/categories/v1/create", { name: "Science" });
    const { data } = answer.body as { data: { id: string } };
    expect(data.id).toMatch(UUID);
    expect(answer.text).toBe(envelope("Record created successfully.", { id: data.id, name: "Science" }));

    const user = await created("/users/v1/create", { name: "Ref", email: "ref@example.com" });
    const post = await created("/posts/v1/create", { title: "Filed", user_id: user.id, category_id: data.id });
    const show = await api.get(`/posts/v1/show/${post.id}`);
    expect(show.text).toContain(`"category_id":"${data.id}",`);
  });

  it("writes the list as the same records, in id order", async () => {
    const list = await api.get("/users/v1/list");
    const records = (list.body as { data: { id: number }[] }).data;
    expect(records.length).toBeGreaterThan(1);
    const shown = await Promise.all(
      records.map(
        async ({ id }) => (JSON.parse((await api.get(`/users/v1/show/${id}`)).text) as { data: unknown }).data,
      ),
    );
    expect(list.text).toBe(envelope("Data found.", shown));
    expect(records.map(({ id }) => id)).toEqual([...records.map(({ id }) => id)].sort((a, b) => a - b));
  });

  it("never writes a column the manifest does not declare", async () => {
    // Columns added behind the server's back, to a table with converted values (users) and to one
    // whose rows are returned as read (categories).
    db.exec(`ALTER TABLE "users" ADD COLUMN "secret" TEXT DEFAULT 'do-not-leak'`);
    db.exec(`ALTER TABLE "categories" ADD COLUMN "secret" TEXT DEFAULT 'do-not-leak'`);
    const user = await created("/users/v1/create", { name: "Eve", email: "eve@example.com" });
    const category = await created("/categories/v1/create", { name: "Hidden" });
    const answers = [
      await api.get("/users/v1/list"),
      await api.get(`/users/v1/show/${user.id}`),
      await api.post(`/users/v1/update/${user.id}`, { bio: "Curious" }),
      await api.post("/users/v1/create", { name: "Mallory", email: "mallory@example.com" }),
      await api.get("/categories/v1/list"),
      await api.get(`/categories/v1/show/${category.id}`),
      await api.post(`/categories/v1/update/${category.id}`, { name: "Still hidden" }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBeLessThan(300);
      expect(answer.text).not.toContain("secret");
      expect(answer.text).not.toContain("do-not-leak");
    }
    expect(Object.keys((answers[1]!.body as { data: object }).data)).toEqual([
      "id",
      "name",
      "email",
      "phone",
      "bio",
      "active",
      "created_at",
    ]);
  });
});

describe("custom query rows", () => {
  it("are keyed by the query's output columns, in the SELECT's order", async () => {
    const category = await created("/categories/v1/create", { name: "Rows" });
    const user = await created("/users/v1/create", { name: "Rower", email: "rower@example.com" });
    const post = await created("/posts/v1/create", { title: "Row one", user_id: user.id, category_id: category.id });
    const answer = await api.get(`/v1/category_posts?category_id=${category.id}`);
    expect(answer.text).toBe(
      envelope("Data found.", [
        { category_id: category.id, category_name: "Rows", post_id: post.id, description: "Row one" },
      ]),
    );
  });

  it("write BOOLEAN and DATETIME columns like records do", async () => {
    const user = await created("/users/v1/create", { name: "Author", email: "author@example.com" });
    const post = await created("/posts/v1/create", {
      title: "Fresh",
      user_id: user.id,
      published: true,
      published_at: "2999-01-02T03:04:05.500-01:00",
    });
    const answer = await api.get("/v2/recent_posts?since=2999-01-01T00:00:00Z&published=true");
    expect(answer.text).toBe(
      envelope("Data found.", [
        { id: post.id, title: "Fresh", published: true, published_at: "2999-01-02T04:04:05Z", author: "Author" },
      ]),
    );
  });
});

describe("envelopes", () => {
  it("answers a delete with exactly {success, message}", async () => {
    const user = await created("/users/v1/create", { name: "Gone", email: "gone@example.com" });
    const answer = await api.del(`/users/v1/delete/${user.id}`);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(`{"success":true,"message":"Record deleted successfully."}`);
  });

  it("answers an empty list with data [] and a failure with exactly {success, message, data: []}", async () => {
    const empty = await api.get("/comments/v2/list");
    expect(empty.text).toBe(`{"success":true,"message":"Data found.","data":[]}`);
    const missing = await api.get("/users/v1/show/999999");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe(`{"success":false,"message":"Data not found","data":[]}`);
  });
});
