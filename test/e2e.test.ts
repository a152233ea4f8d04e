import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { alternating, client, failure, type Client } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { PGBOUNCER, startPgBouncer, throughBouncer, type PgBouncer } from "./helpers/pgbouncer.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// The generated blog server, on a migrated database of its own (SQLite or PostgreSQL), run as a
// child process; every request goes over a real socket. CONTRACT.md §3 is the reference for every
// assertion, and the same assertions hold on both databases.

const KEYS = ["first-key-0123456789", "second-key-9876543210"];
const BODY_LIMIT = 4096;

let server: RunningServer;
let api: Client;
/** The server's database, for what a test does behind the API's back. */
let db: LiveDatabase;

type Envelope<T = Record<string, unknown>> = { success: boolean; message: string; data: T };

async function createUser(fields: Record<string, unknown> = {}) {
  const unique = Math.random().toString(36).slice(2);
  const answer = await api.post("/users/v1/create", { name: "Ada", email: `ada-${unique}@example.com`, ...fields });
  expect(answer.status, answer.text).toBe(201);
  return (answer.body as Envelope).data;
}

const postgresUrl = inject("postgresUrl");

// One suite, run against each database the generated server supports, and on PostgreSQL behind
// PgBouncer in transaction mode too (issue 30): two server processes, requests alternating between
// them, with 10 connections each through a pool of 2 server connections, so that each statement
// may run on another server connection than the last.
const POOLED = "postgresql behind PgBouncer";
let bouncer: PgBouncer | undefined;
const servers: RunningServer[] = [];

for (const setup of ["sqlite", "postgresql", POOLED] as const) {
  const database = setup === POOLED ? "postgresql" : setup;
  const skipped = database === "postgresql" && (!postgresUrl || (setup === POOLED && !PGBOUNCER));
  describe.skipIf(skipped)(`the generated blog server on ${setup}`, () => {
    beforeAll(async () => {
      const { dir } = await sharedExample("blog", database);
      db = await exampleDatabase("blog", database);
      const env = { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEYS.join(","), BODY_LIMIT: String(BODY_LIMIT) };
      if (setup !== POOLED) {
        servers.push((server = await startTranspiled(dir, env)));
        api = client(`${server.url}/blog`, KEYS[0]);
        return;
      }
      // Sessions whose TimeZone is not UTC: a pooler's sessions are not the server's to set.
      await db.exec(`ALTER DATABASE "${new URL(db.url).pathname.slice(1)}" SET timezone TO 'Asia/Kolkata'`);
      bouncer = await startPgBouncer(postgresUrl, 2);
      const through = { ...env, DATABASE_URL: throughBouncer(db.url, bouncer), DATABASE_POOLER: "transaction" };
      servers.push(...(await Promise.all([startTranspiled(dir, through), startTranspiled(dir, through)])));
      server = servers[0]!;
      api = alternating(servers.map((each) => client(`${each.url}/blog`, KEYS[0])));
    });

    afterAll(async () => {
      await Promise.all(servers.splice(0).map((each) => each.stop()));
      await bouncer?.stop();
    });

    describe("table routes", () => {
      it("creates a record with defaults filled and every field present, id first", async () => {
        const answer = await api.post("/users/v1/create", { name: "Grace", email: "grace@example.com" });
        expect(answer.status).toBe(201);
        const { success, message, data } = answer.body as Envelope;
        expect({ success, message }).toEqual({ success: true, message: "Record created successfully." });
        expect(Object.keys(data)).toEqual(["id", "name", "email", "phone", "bio", "active", "created_at"]);
        expect(data).toMatchObject({ name: "Grace", email: "grace@example.com", phone: null, bio: null, active: true });
        expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        expect(Math.abs(Date.parse(data.created_at as string) - Date.now())).toBeLessThan(60_000);
      });

      it("lists all records ordered by id, and shows one", async () => {
        const a = await createUser();
        const b = await createUser();
        const list = await api.get("/users/v1/list");
        expect(list.status).toBe(200);
        const { message, data } = list.body as Envelope<{ id: number }[]>;
        expect(message).toBe("Data found.");
        const ids = data.map((record) => record.id);
        expect(ids).toEqual([...ids].sort((x, y) => x - y));
        expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));

        const show = await api.get(`/users/v1/show/${a.id}`);
        expect(show.status).toBe(200);
        expect(show.body).toEqual({ success: true, message: "Data found.", data: a });
      });

      it("reads with X-Consistency strong or eventual, and refuses any other value with 400 (issue 30)", async () => {
        const user = await createUser();
        const read = (path: string, value: string) => api.request("GET", path, { headers: { "x-consistency": value } });
        for (const value of ["strong", "eventual"]) {
          expect((await read(`/users/v1/show/${user.id}`, value)).body).toEqual({
            success: true,
            message: "Data found.",
            data: user,
          });
          expect((await read("/users/v1/list?limit=1", value)).status).toBe(200);
          expect(
            (await read("/v1/category_posts?category_id=00000000-0000-4000-8000-000000000001", value)).status,
          ).toBe(200);
        }
        const refusal = failure("Invalid request: X-Consistency must be strong or eventual");
        for (const path of [`/users/v1/show/${user.id}`, "/users/v1/list", "/v1/category_posts?category_id=x"]) {
          const answer = await read(path, "Strong");
          expect(answer.status).toBe(400);
          expect(answer.body).toEqual(refusal);
        }
      });

      it("answers an empty list with success and data []", async () => {
        const answer = await api.get("/comments/v2/list");
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ success: true, message: "Data found.", data: [] });
      });

      it("updates a subset of fields and returns the full record", async () => {
        const user = await createUser({ phone: "+44 20 7946 0958", bio: "Mathematician" });
        const answer = await api.post(`/users/v1/update/${user.id}`, { bio: "Analyst", active: false });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({
          success: true,
          message: "Record updated successfully.",
          data: { ...user, bio: "Analyst", active: false },
        });
      });

      it("sets an optional field to null on update", async () => {
        const user = await createUser({ phone: "555-123-4567" });
        const answer = await api.post(`/users/v1/update/${user.id}`, { phone: null });
        expect((answer.body as Envelope).data.phone).toBeNull();
      });

      it("deletes a record: success and message only, then it is gone", async () => {
        const user = await createUser();
        const answer = await api.del(`/users/v1/delete/${user.id}`);
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ success: true, message: "Record deleted successfully." });
        expect((await api.get(`/users/v1/show/${user.id}`)).status).toBe(404);
      });

      it("serves a table under each of its versions only", async () => {
        expect((await api.get("/users/v2/list")).status).toBe(200);
        expect((await api.get("/categories/v1/list")).status).toBe(200);
        expect((await api.get("/categories/v2/list")).body).toEqual(failure("Data not found"));
        expect((await api.get("/comments/v1/list")).body).toEqual(failure("Data not found"));
      });

      it("gives uuid ids to a table with id: uuid, lowercase, and finds them in any case", async () => {
        const answer = await api.post("/categories/v1/create", { name: "Science" });
        expect(answer.status).toBe(201);
        const { data } = answer.body as Envelope<{ id: string; name: string }>;
        expect(data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect((await api.get(`/categories/v1/show/${data.id.toUpperCase()}`)).body).toEqual({
          success: true,
          message: "Data found.",
          data,
        });
      });

      it("keeps floats, booleans and references as JSON numbers, booleans and strings", async () => {
        const user = await createUser();
        const category = ((await api.post("/categories/v1/create", { name: "Maths" })).body as Envelope).data;
        const answer = await api.post("/posts/v1/create", {
          title: "On numbers",
          rating: 4.25,
          published: true,
          user_id: user.id,
          category_id: category.id,
        });
        expect(answer.status, answer.text).toBe(201);
        expect((answer.body as Envelope).data).toMatchObject({
          rating: 4.25,
          published: true,
          user_id: user.id,
          category_id: category.id,
          body: null,
        });
      });
    });

    describe("DATETIME values", () => {
      it.each([
        ["2024-03-10T12:30:45Z", "2024-03-10T12:30:45Z"],
        ["2024-03-10T12:30:45z", "2024-03-10T12:30:45Z"],
        ["2024-03-10 12:30:45Z", "2024-03-10T12:30:45Z"],
        ["2024-03-10T14:30:45+02:00", "2024-03-10T12:30:45Z"],
        ["2024-03-10T07:00:45-05:30", "2024-03-10T12:30:45Z"],
        ["2024-03-10T12:30:45.987654Z", "2024-03-10T12:30:45Z"],
        ["2024-12-31T23:30:00-01:00", "2025-01-01T00:30:00Z"],
      ])("stores %s and answers %s", async (input, expected) => {
        const user = await createUser();
        const answer = await api.post("/posts/v1/create", { title: "t", user_id: user.id, published_at: input });
        expect(answer.status, answer.text).toBe(201);
        const { data } = answer.body as Envelope;
        expect(data.published_at).toBe(expected);
        expect(((await api.get(`/posts/v1/show/${data.id}`)).body as Envelope).data.published_at).toBe(expected);
      });

      it.each([
        "2024-03-10",
        "2024-03-10T12:30:45",
        "2024-02-30T12:00:00Z",
        "2024-03-10T25:00:00Z",
        "yesterday",
        "2024-03-10T12:30:45+0200",
      ])("refuses %s", async (input) => {
        const user = await createUser();
        const answer = await api.post("/posts/v1/create", { title: "t", user_id: user.id, published_at: input });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual(
          failure("Invalid request: published_at must be a date-time with a time zone, like 2024-01-31T12:00:00Z"),
        );
      });
    });

    describe("authentication", () => {
      it("answers the health route without a key, in the same shape on every database (issue 30)", async () => {
        for (const headers of [{}, { "x-api-signature": "wrong" }] as Record<string, string>[]) {
          const answer = await fetch(`${server.url}/blog/health`, { headers });
          expect(answer.status).toBe(200);
          expect(await answer.json()).toEqual({
            success: true,
            message: "Healthy",
            data: { primary: "up", replicas: [] },
          });
        }
      });

      it("refuses a missing key with 401 before anything else", async () => {
        const anonymous = client(`${server.url}/blog`, undefined);
        for (const path of ["/users/v1/list", "/nothing/v1/list", "/users/v9/list", "/users/v1/show/%E0%A4%A"]) {
          const answer = await anonymous.get(path);
          expect(answer.status).toBe(401);
          expect(answer.body).toEqual(failure("Invalid or missing API signature key"));
        }
        expect((await client(server.url, undefined).get("/other-project/users/v1/list")).status).toBe(401);
      });

      it("refuses a wrong key, an empty one, a prefix of the right one and the whole list", async () => {
        for (const key of ["wrong", "", KEYS[0]!.slice(0, -1), `${KEYS[0]}x`, KEYS.join(",")]) {
          const answer = await client(`${server.url}/blog`, key).get("/users/v1/list");
          expect(answer.status).toBe(401);
          expect(answer.body).toEqual(failure("Invalid or missing API signature key"));
        }
      });

      it("accepts every key of a comma-separated list (rotation)", async () => {
        for (const key of KEYS)
          expect((await client(`${server.url}/blog`, key).get("/users/v1/list")).status).toBe(200);
      });

      it("checks the key before reading the body: a bad key with a huge body is a 401", async () => {
        const answer = await client(`${server.url}/blog`, "wrong").request("POST", "/users/v1/create", {
          raw: "x".repeat(BODY_LIMIT * 4),
          headers: { "content-type": "application/json" },
        });
        expect(answer.status).toBe(401);
      });
    });

    describe("unknown paths and methods", () => {
      it.each(["/users/v1/lists", "/users/v3/list", "/nope/v1/list", "/v1/nope", "/users/v1/show", "/users/v1", ""])(
        "answers GET /blog%s with 404",
        async (path) => {
          const answer = await api.get(path);
          expect(answer.status).toBe(404);
          expect(answer.body).toEqual(failure("Data not found"));
        },
      );

      it("answers a path that is not valid percent-encoding with 404", async () => {
        const answer = await api.get("/users/v1/show/%E0%A4%A");
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual(failure("Data not found"));
      });

      it("answers an unknown project with 404", async () => {
        const answer = await client(server.url, KEYS[0]).get("/shop/users/v1/list");
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual(failure("Data not found"));
      });

      it.each(["abc", "0", "-1", "1.5", "99999999999", "2147483648", "01", "+1", "1e400", "15e-1"])(
        "answers a number id %s that cannot exist with 404",
        async (id) => {
          for (const action of ["show", "update", "delete"]) {
            const method = action === "show" ? "GET" : action === "update" ? "POST" : "DELETE";
            const answer = await api.request(
              method,
              `/users/v1/${action}/${id}`,
              action === "update" ? { body: { name: "x" } } : {},
            );
            expect(answer.status, `${action} ${id}`).toBe(404);
            expect(answer.body).toEqual(failure("Data not found"));
          }
        },
      );

      it("reads a number id as a JSON body's number is read: 1e0 and 1.0 are 1 (issue 16)", async () => {
        const user = await createUser();
        const id = user.id as number;
        for (const written of [`${id}e0`, `${id}.0`, `${id}0E-1`]) {
          const answer = await api.get(`/users/v1/show/${written}`);
          expect(answer.status, written).toBe(200);
          expect(answer.body).toEqual({ success: true, message: "Data found.", data: user });
        }
        expect((await api.post(`/users/v1/update/${id}e0`, { bio: "e" })).status).toBe(200);
        expect((await api.del(`/users/v1/delete/${id}.0`)).status).toBe(200);
      });

      it("answers a missing record with 404 on show, update and delete", async () => {
        expect((await api.get("/users/v1/show/2147483647")).body).toEqual(failure("Data not found"));
        expect((await api.post("/users/v1/update/2147483647", { name: "x" })).status).toBe(404);
        expect((await api.del("/users/v1/delete/2147483647")).status).toBe(404);
        expect((await api.get("/categories/v1/show/not-a-uuid")).status).toBe(404);
        expect((await api.get("/categories/v1/show/00000000-0000-4000-8000-000000000000")).status).toBe(404);
      });

      it.each([
        ["DELETE", "/users/v1/list", "GET, HEAD"],
        ["POST", "/users/v1/list", "GET, HEAD"],
        ["PUT", "/users/v1/update/1", "POST"],
        ["PATCH", "/users/v1/update/1", "POST"],
        ["GET", "/users/v1/create", "POST"],
        ["GET", "/users/v1/delete/1", "DELETE"],
        ["POST", "/users/v1/show/1", "GET, HEAD"],
        ["POST", "/v1/category_posts", "GET, HEAD"],
      ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
        const answer = await api.request(method, path);
        expect(answer.status).toBe(405);
        expect(answer.body).toEqual(failure("Method not allowed"));
        expect(answer.headers.get("allow")).toBe(allow);
      });

      it("tolerates a trailing slash and answers HEAD like GET", async () => {
        expect((await api.get("/users/v1/list/")).status).toBe(200);
        const head = await api.request("HEAD", "/users/v1/list");
        expect(head.status).toBe(200);
        expect(head.headers.get("content-type")).toMatch(/^application\/json/);
      });
    });

    describe("request bodies", () => {
      const invalid = (problems: string) => failure(`Invalid request: ${problems}`);

      it.each([
        [{}, "name is required; email is required"],
        [{ name: "A", email: "not-an-email" }, "email must be a valid e-mail address"],
        [{ name: "A", email: "a b@example.com" }, "email must be a valid e-mail address"],
        [{ name: "A", email: "a@example" }, "email must be a valid e-mail address"],
        [{ name: "A", email: "a@example.com", phone: "12345" }, "phone must be a valid phone number"],
        [{ name: "A", email: "a@example.com", phone: "call me" }, "phone must be a valid phone number"],
        [{ name: "A", email: "a@example.com", nick: "x" }, "unknown field nick"],
        [{ id: 5, name: "A", email: "a@example.com" }, "id is assigned by the server and cannot be set"],
        [{ name: null, email: "a@example.com" }, "name must not be null"],
        [{ name: "", email: "a@example.com" }, "name must not be empty"],
        [{ name: 123, email: "a@example.com" }, "name must be a string"],
        [{ name: "A", email: "a@example.com", active: "true" }, "active must be true or false"],
        [
          { name: "A", email: "a@example.com", created_at: 1700000000 },
          "created_at must be a date-time with a time zone, like 2024-01-31T12:00:00Z",
        ],
        [{ name: "A", email: 5 }, "email must be a valid e-mail address"],
        [{ name: "x".repeat(256), email: "a@example.com" }, "name must be at most 255 characters"],
      ])("refuses users body %j", async (body, problems) => {
        const answer = await api.post("/users/v1/create", body);
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual(invalid(problems));
      });

      it("lists every problem at once, joined with '; '", async () => {
        const answer = await api.post("/posts/v1/create", { title: "", rating: "5", user_id: 1.5, extra: true });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual(
          invalid("unknown field extra; title must not be empty; rating must be a number; user_id must be an integer"),
        );
      });

      it("names a bad uuid reference one way on create, update and list filters (issue 25)", async () => {
        const user = await createUser();
        const post = await api.post("/posts/v1/create", { title: "t", user_id: user.id });
        expect(post.status, post.text).toBe(201);
        const id = (post.body as Envelope<{ id: number }>).data.id;
        const wrong = invalid("category_id must be a UUID");
        for (const category_id of [5, "abc", true, "0b5f"]) {
          const created = await api.post("/posts/v1/create", { title: "t", user_id: user.id, category_id });
          expect([created.status, created.body]).toEqual([400, wrong]);
          const updated = await api.post(`/posts/v1/update/${id}`, { category_id });
          expect([updated.status, updated.body]).toEqual([400, wrong]);
        }
        for (const filter of ["category_id=5", "category_id=abc", "category_id[in]=5", "category_id[ne]=true"]) {
          const listed = await api.get(`/posts/v1/list?${filter}`);
          expect(listed.status).toBe(400);
          expect((listed.body as Envelope).message).toMatch(
            /^Invalid request: category_id(\[\w+\])? must be (a UUID|a list of UUIDs, separated by commas)$/,
          );
        }
      });

      it("counts maxLength in characters, not bytes or UTF-16 units", async () => {
        const user = await createUser();
        const title = "😀".repeat(200);
        const ok = await api.post("/posts/v1/create", { title, user_id: user.id });
        expect(ok.status, ok.text).toBe(201);
        expect((ok.body as Envelope).data.title).toBe(title);
        const long = await api.post("/posts/v1/create", { title: title + "é", user_id: user.id });
        expect(long.body).toEqual(invalid("title must be at most 200 characters"));
      });

      it("does not coerce: '12' is not a NUMBER and 1 is not a BOOLEAN", async () => {
        const user = await createUser();
        expect((await api.post("/posts/v1/create", { title: "t", user_id: String(user.id) })).body).toEqual(
          invalid("user_id must be an integer"),
        );
        expect((await api.post("/posts/v1/create", { title: "t", user_id: user.id, published: 1 })).body).toEqual(
          invalid("published must be true or false"),
        );
      });

      it("refuses an empty update, and an update that nulls a required field", async () => {
        const user = await createUser();
        expect((await api.post(`/users/v1/update/${user.id}`, {})).body).toEqual(
          invalid("body must name at least one field to change"),
        );
        expect((await api.post(`/users/v1/update/${user.id}`, { email: null })).body).toEqual(
          invalid("email must not be null"),
        );
      });

      it("validates the body before looking the record up", async () => {
        const answer = await api.post("/users/v1/update/2147483647", { nick: "x" });
        expect(answer.status).toBe(400);
      });

      it("refuses a body key that could reach a prototype, naming it (issue 16)", async () => {
        const json = { "content-type": "application/json" };
        const bodies: [string, string][] = [
          ['{"name": "A", "email": "a@example.com", "__proto__": {"admin": true}}', "__proto__"],
          ['{"name": "A", "email": "a@example.com", "\\u005f_proto__": 1}', "__proto__"],
          [
            '{"name": {"constructor": {"prototype": {"admin": true}}}, "email": "a@example.com"}',
            "constructor.prototype",
          ],
        ];
        for (const [raw, key] of bodies) {
          const answer = await api.request("POST", "/users/v1/create", { raw, headers: json });
          expect(answer.status, raw).toBe(400);
          expect(answer.body).toEqual(invalid(`body key ${key} is not allowed`));
        }
        // The words themselves are no problem in values, nor a constructor without a prototype.
        const fine = await api.post("/users/v1/create", {
          name: "__proto__ constructor \\u0041",
          email: "p@example.com",
        });
        expect(fine.status).toBe(201);
        const other = await api.request("POST", "/users/v1/create", {
          raw: '{"name": "B", "email": "b@example.com", "constructor": 1}',
          headers: json,
        });
        expect(other.body).toEqual(invalid("unknown field constructor"));
      });

      it("refuses a body that is not JSON, or not an object", async () => {
        const json = { "content-type": "application/json" };
        expect((await api.request("POST", "/users/v1/create", { raw: "{name:", headers: json })).body).toEqual(
          invalid("body is not valid JSON"),
        );
        for (const raw of ["[1,2]", '"text"', "42", "null"]) {
          const answer = await api.request("POST", "/users/v1/create", { raw, headers: json });
          expect(answer.status, raw).toBe(400);
          expect(answer.body).toEqual(invalid("body must be a JSON object"));
        }
        expect((await api.request("POST", "/users/v1/create", { raw: "", headers: json })).body).toEqual(
          invalid("body must be a JSON object"),
        );
      });

      it("refuses a body that is not JSON by Content-Type with 415", async () => {
        for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
          const answer = await api.request("POST", "/users/v1/create", {
            raw: "name=A",
            headers: { "content-type": type },
          });
          expect(answer.status, type).toBe(415);
          expect(answer.body).toEqual(failure("Unsupported media type"));
        }
        // A body with no Content-Type at all (fetch adds none for bytes).
        const untyped = await api.request("POST", "/users/v1/create", {
          raw: new TextEncoder().encode('{"name":"A"}'),
        });
        expect(untyped.status).toBe(415);
        expect(untyped.body).toEqual(failure("Unsupported media type"));
      });

      it("refuses a body larger than BODY_LIMIT with 413, and the client reads the answer", async () => {
        const raw = JSON.stringify({ name: "x".repeat(BODY_LIMIT * 8), email: "big@example.com" });
        const answer = await api.request("POST", "/users/v1/create", {
          raw,
          headers: { "content-type": "application/json" },
        });
        expect(answer.status).toBe(413);
        expect(answer.body).toEqual(failure("Payload too large"));
        const other = await api.request("POST", "/users/v1/create", {
          raw: "x".repeat(BODY_LIMIT * 2),
          headers: { "content-type": "text/plain" },
        });
        expect(other.status).toBe(413);
      });
    });

    describe("database constraints", () => {
      it("answers a unique value already taken with 409, on create and on update", async () => {
        const user = await createUser();
        const taken = await api.post("/users/v1/create", { name: "B", email: user.email });
        expect(taken.status).toBe(409);
        expect(taken.body).toEqual(failure("Invalid request: email already exists"));
        const other = await createUser();
        const update = await api.post(`/users/v1/update/${other.id}`, { email: user.email });
        expect(update.status).toBe(409);
        expect(update.body).toEqual(failure("Invalid request: email already exists"));
      });

      it("answers a reference to a record that does not exist with 400", async () => {
        const answer = await api.post("/posts/v1/create", { title: "t", user_id: 2147483647 });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual(failure("Invalid request: user_id refers to no users record"));
        const user = await createUser();
        const both = await api.post("/posts/v1/create", {
          title: "t",
          user_id: user.id,
          category_id: "00000000-0000-4000-8000-000000000000",
        });
        expect(both.body).toEqual(failure("Invalid request: category_id refers to no categories record"));
        const post = ((await api.post("/posts/v1/create", { title: "t", user_id: user.id })).body as Envelope).data;
        const update = await api.post(`/posts/v1/update/${post.id}`, { user_id: 2147483646 });
        expect(update.body).toEqual(failure("Invalid request: user_id refers to no users record"));
      });

      it("refuses to delete a record others reference with onDelete: restrict (409)", async () => {
        const user = await createUser();
        const post = ((await api.post("/posts/v2/create", { title: "t", user_id: user.id })).body as Envelope).data;
        const comment = await api.post("/comments/v2/create", { post_id: post.id, author: "Bob", text: "Nice" });
        expect(comment.status).toBe(201);
        const answer = await api.del(`/posts/v2/delete/${post.id}`);
        expect(answer.status).toBe(409);
        expect(answer.body).toEqual(failure("Record is referenced by comments"));
        expect((await api.get(`/posts/v2/show/${post.id}`)).status).toBe(200);
      });

      it("refuses a delete whose cascade reaches a restricted reference, naming it and the cascade", async () => {
        const user = await createUser();
        const post = ((await api.post("/posts/v2/create", { title: "t", user_id: user.id })).body as Envelope).data;
        expect((await api.post("/comments/v2/create", { post_id: post.id, author: "A", text: "B" })).status).toBe(201);
        const answer = await api.del(`/users/v2/delete/${user.id}`);
        expect(answer.status).toBe(409);
        // posts cascade and refuse nothing themselves: the comment on the post is what is in the way.
        expect(answer.body).toEqual(failure("Record is referenced by comments (through posts)"));
        expect((await api.get(`/posts/v2/show/${post.id}`)).status).toBe(200);
      });

      it("refuses a delete that a table outside the manifest restricts, without naming it", async () => {
        const user = await createUser();
        const id = database === "sqlite" ? "INTEGER PRIMARY KEY" : "SERIAL PRIMARY KEY";
        await db.exec(
          `CREATE TABLE audit (id ${id}, user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE RESTRICT)`,
        );
        await db.exec(`INSERT INTO audit (user_id) VALUES (${user.id})`);
        const answer = await api.del(`/users/v1/delete/${user.id}`);
        expect(answer.status).toBe(409);
        expect(answer.body).toEqual(failure("Record is referenced by other records"));
        await db.exec("DROP TABLE audit");
        expect((await api.del(`/users/v1/delete/${user.id}`)).status).toBe(200);
      });

      it("cascades and nulls as the manifest says", async () => {
        const user = await createUser();
        const category = ((await api.post("/categories/v1/create", { name: `c-${user.id}` })).body as Envelope).data;
        const post = (
          (await api.post("/posts/v1/create", { title: "t", user_id: user.id, category_id: category.id }))
            .body as Envelope
        ).data;
        expect((await api.del(`/categories/v1/delete/${category.id}`)).status).toBe(200);
        expect(((await api.get(`/posts/v1/show/${post.id}`)).body as Envelope).data.category_id).toBeNull();
        expect((await api.del(`/users/v1/delete/${user.id}`)).status).toBe(200);
        expect((await api.get(`/posts/v1/show/${post.id}`)).status).toBe(404);
      });

      it("stores 200 concurrent creates, all with distinct ids", async () => {
        const answers = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            api.post("/users/v1/create", { name: `n${i}`, email: `bulk-${i}@example.com` }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(201));
        const ids = answers.map((answer) => (answer.body as Envelope<{ id: number }>).data.id);
        expect(new Set(ids).size).toBe(200);
        const listed = ((await api.get("/users/v1/list")).body as Envelope<{ email: string }[]>).data;
        expect(listed.filter((record) => record.email.startsWith("bulk-"))).toHaveLength(200);
      });
    });

    describe("custom queries", () => {
      it("runs the specification's category/posts query with a bound parameter", async () => {
        const user = await createUser();
        const category = ((await api.post("/categories/v1/create", { name: "Joined" })).body as Envelope).data;
        const post = (
          (await api.post("/posts/v1/create", { title: "Joined post", user_id: user.id, category_id: category.id }))
            .body as Envelope
        ).data;
        for (const version of ["v1", "v2"]) {
          const answer = await api.get(`/${version}/category_posts?category_id=${category.id}`);
          expect(answer.status).toBe(200);
          expect(answer.body).toEqual({
            success: true,
            message: "Data found.",
            data: [{ category_id: category.id, category_name: "Joined", post_id: post.id, description: "Joined post" }],
          });
        }
      });

      it("never splices parameters into the SQL", async () => {
        const answer = await api.get(`/v1/category_posts?category_id=${encodeURIComponent("' OR 1=1 --")}`);
        if (database === "sqlite") {
          expect(answer.body).toEqual({ success: true, message: "Data found.", data: [] });
        } else {
          // PostgreSQL compares the text with a uuid column, and the text is no uuid.
          expect(answer.status).toBe(400);
          expect(answer.body).toEqual(failure("Invalid request: category_id is not valid for this query"));
        }
      });

      it("converts typed parameters and serializes BOOLEAN and DATETIME columns like records", async () => {
        const user = await createUser({ name: "Writer" });
        await api.post("/posts/v2/create", {
          title: "Old",
          user_id: user.id,
          published: true,
          published_at: "2020-01-01T00:00:00Z",
        });
        const recent = (
          (
            await api.post("/posts/v2/create", {
              title: "New",
              user_id: user.id,
              published: true,
              published_at: "2031-05-06T07:08:09+01:00",
            })
          ).body as Envelope
        ).data;
        const answer = await api.get(
          `/v2/recent_posts?since=${encodeURIComponent("2031-01-01T00:00:00Z")}&published=true`,
        );
        expect(answer.status, answer.text).toBe(200);
        expect((answer.body as Envelope<unknown[]>).data).toEqual([
          { id: recent.id, title: "New", published: true, published_at: "2031-05-06T06:08:09Z", author: "Writer" },
        ]);
      });

      it.each([
        ["/v1/category_posts", "category_id is required"],
        ["/v1/category_posts?category_id=a&category_id=b", "category_id must be given once"],
        ["/v1/category_posts?category_id=a&other=1", "unknown parameter other"],
        [
          "/v2/recent_posts?since=2020-01-01&published=true",
          "since must be a date-time with a time zone, like 2024-01-31T12:00:00Z",
        ],
        ["/v2/recent_posts?since=2020-01-01T00:00:00Z&published=yes", "published must be true or false"],
      ])("refuses GET %s with 400", async (path, problems) => {
        const answer = await api.get(path);
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual(failure(`Invalid request: ${problems}`));
      });

      it("serves a query only under its versions", async () => {
        expect((await api.get("/v1/recent_posts?since=2020-01-01T00:00:00Z&published=true")).body).toEqual(
          failure("Data not found"),
        );
      });
    });
  });
}
