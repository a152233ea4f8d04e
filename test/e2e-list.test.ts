import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { alternating, client, failure, type Client } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { PGBOUNCER, startPgBouncer, throughBouncer, type PgBouncer } from "./helpers/pgbouncer.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// List queries of the generated blog server (paging, sorting, filters, counts, keyset paging) over
// real HTTP, on a database of their own holding known records; the same answers on both databases.

const KEY = "list-key-0123456789";
const postgresUrl = inject("postgresUrl");

type Post = {
  id: number;
  title: string;
  body: string | null;
  published: boolean;
  rating: number | null;
  user_id: number;
  category_id: string | null;
  published_at: string | null;
};
type Envelope<T> = { success: boolean; message: string; data: T };

// On PostgreSQL behind PgBouncer in transaction mode too (issue 30): two server processes, requests
// alternating between them, through a pool of 2 server connections, on a database whose sessions'
// TimeZone is not UTC (a pooler's sessions are not the server's to set).
const POOLED = "postgresql behind PgBouncer";

for (const setup of ["sqlite", "postgresql", POOLED] as const) {
  const database = setup === POOLED ? "postgresql" : setup;
  const skipped = database === "postgresql" && (!postgresUrl || (setup === POOLED && !PGBOUNCER));
  describe.skipIf(skipped)(`list queries on ${setup}`, () => {
    const servers: RunningServer[] = [];
    let bouncer: PgBouncer | undefined;
    let api: Client;
    let posts: Post[] = [];
    let category: string;
    let db: LiveDatabase;

    const list = async (query: string) => {
      const answer = await api.get(`/posts/v1/list${query}`);
      expect(answer.status, answer.text).toBe(200);
      return { ...answer, records: (answer.body as Envelope<Post[]>).data };
    };
    const ids = async (query: string) => (await list(query)).records.map((post) => post.id);
    const idsOf = (keep: (post: Post) => boolean) => posts.filter(keep).map((post) => post.id);
    const refused = async (query: string, message: string) => {
      const answer = await api.get(`/posts/v1/list${query}`);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toEqual(failure(message));
    };

    beforeAll(async () => {
      const { dir } = await sharedExample("blog", database);
      db = await exampleDatabase("blog", database);
      if (setup !== POOLED) {
        servers.push(await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY }));
      } else {
        await db.exec(`ALTER DATABASE "${new URL(db.url).pathname.slice(1)}" SET timezone TO 'America/St_Johns'`);
        bouncer = await startPgBouncer(postgresUrl, 2);
        const env = {
          DATABASE_URL: throughBouncer(db.url, bouncer),
          DATABASE_POOLER: "transaction",
          API_SIGNATURE_KEY: KEY,
        };
        servers.push(...(await Promise.all([startTranspiled(dir, env), startTranspiled(dir, env)])));
      }
      api = alternating(servers.map((server) => client(`${server.url}/blog`, KEY)));
      const user = (await api.post("/users/v1/create", { name: "Ada", email: "ada@example.com" })).body as Envelope<{
        id: number;
      }>;
      category = ((await api.post("/categories/v1/create", { name: "Tech" })).body as Envelope<{ id: string }>).data.id;
      const rows: Partial<Post>[] = [
        { title: "Alpha", rating: 3, published: true, published_at: "2024-01-01T10:00:00Z", category_id: category },
        { title: "beta", rating: 5, published: false, published_at: "2024-02-01T10:00:00Z" },
        { title: "Gamma ray", rating: 3, published: true, published_at: null, body: "Über die Strahlen" },
        { title: "delta", rating: null, published: false, published_at: "2024-03-01T10:00:00+02:00" },
        { title: "Epsilon", rating: 1.5, published: true, published_at: "2023-12-31T23:59:59Z", category_id: category },
        { title: "zeta ÉCLAIR", rating: 5, published: true, published_at: "2024-02-01T10:00:00Z" },
      ];
      posts = [];
      for (const row of rows) {
        const answer = await api.post("/posts/v1/create", { user_id: user.data.id, ...row });
        expect(answer.status, answer.text).toBe(201);
        posts.push((answer.body as Envelope<Post>).data);
      }
    });

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await bouncer?.stop();
    });

    it("answers every record in id order without parameters, exactly as before", async () => {
      const { text, records } = await list("");
      expect(records.map((post) => post.id)).toEqual(posts.map((post) => post.id));
      expect(text).toBe(JSON.stringify({ success: true, message: "Data found.", data: posts }));
    });

    describe("filters", () => {
      it("compares numbers: eq, ne, gt, gte, lt, lte, in, null", async () => {
        expect(await ids("?rating=3")).toEqual(idsOf((post) => post.rating === 3));
        expect(await ids("?rating[ne]=3")).toEqual(idsOf((post) => post.rating !== null && post.rating !== 3));
        expect(await ids("?rating[gt]=3")).toEqual(idsOf((post) => post.rating !== null && post.rating > 3));
        expect(await ids("?rating[gte]=3")).toEqual(idsOf((post) => post.rating !== null && post.rating >= 3));
        expect(await ids("?rating[lt]=3")).toEqual(idsOf((post) => post.rating !== null && post.rating < 3));
        expect(await ids("?rating[lte]=1.5e0")).toEqual(idsOf((post) => post.rating !== null && post.rating <= 1.5));
        expect(await ids("?rating[in]=1.5,5")).toEqual(idsOf((post) => post.rating === 1.5 || post.rating === 5));
        expect(await ids("?rating[null]=true")).toEqual(idsOf((post) => post.rating === null));
        expect(await ids("?rating[null]=false")).toEqual(idsOf((post) => post.rating !== null));
      });

      it("compares date-times by their instant, whatever the offset given", async () => {
        const at = (post: Post) => (post.published_at === null ? NaN : Date.parse(post.published_at));
        const feb = Date.parse("2024-02-01T10:00:00Z");
        expect(await ids("?published_at=2024-02-01T12:00:00%2B02:00")).toEqual(idsOf((post) => at(post) === feb));
        expect(await ids("?published_at[gt]=2024-02-01T10:00:00Z")).toEqual(idsOf((post) => at(post) > feb));
        expect(await ids("?published_at[lte]=2024-01-01T10:00:00Z")).toEqual(
          idsOf((post) => at(post) <= Date.parse("2024-01-01T10:00:00Z")),
        );
        expect(await ids("?published_at[null]=true")).toEqual(idsOf((post) => post.published_at === null));
      });

      it("compares text exactly, and contains ignores case (beyond ASCII too)", async () => {
        expect(await ids("?title=beta")).toEqual(idsOf((post) => post.title === "beta"));
        expect(await ids("?title=Beta")).toEqual([]);
        expect(await ids("?title[in]=Alpha,delta")).toEqual(idsOf((post) => ["Alpha", "delta"].includes(post.title)));
        expect(await ids("?title[contains]=A")).toEqual(idsOf((post) => post.title.toLowerCase().includes("a")));
        expect(await ids("?title[contains]=%C3%A9clair")).toEqual(idsOf((post) => post.title === "zeta ÉCLAIR"));
        expect(await ids("?body[contains]=%C3%BCBER")).toEqual(idsOf((post) => post.body === "Über die Strahlen"));
        expect(await ids("?title[contains]=%25")).toEqual([]);
      });

      it("takes booleans and uuids by their type", async () => {
        expect(await ids("?published=true")).toEqual(idsOf((post) => post.published));
        expect(await ids("?published[ne]=true")).toEqual(idsOf((post) => !post.published));
        expect(await ids(`?category_id=${category.toUpperCase()}`)).toEqual(
          idsOf((post) => post.category_id === category),
        );
        expect(await ids("?category_id[null]=true")).toEqual(idsOf((post) => post.category_id === null));
      });

      it("combines several filters with AND, and filters on id", async () => {
        expect(await ids("?published=true&rating[gte]=3")).toEqual(
          idsOf((post) => post.published && post.rating !== null && post.rating >= 3),
        );
        const second = posts[1]!.id;
        expect(await ids(`?id[gt]=${second}&id[lte]=${posts[3]!.id}`)).toEqual([posts[2]!.id, posts[3]!.id]);
      });

      it("binds values, never splices them: hostile values and names match nothing or are refused", async () => {
        expect(await ids("?title=%27%20OR%201%3D1%20--")).toEqual([]);
        expect(await ids("?title[contains]=%22%29%20OR%20%28%221%22%3D%221")).toEqual([]);
        await refused("?%22id%22--=1", 'Invalid request: unknown parameter "id"--');
        await refused("?title[gt]%20OR%201=1", "Invalid request: unknown parameter title[gt] OR 1");
        expect((await list("")).records).toHaveLength(posts.length);
      });
    });

    describe("sorting and paging", () => {
      it("sorts by several fields, - for descending, ties broken by id; nulls come last ascending, first descending", async () => {
        const titles = async (query: string) => (await list(query)).records.map((post) => post.title);
        expect(await titles("?sort=-rating,title")).toEqual([
          "delta",
          "beta",
          "zeta ÉCLAIR",
          "Alpha",
          "Gamma ray",
          "Epsilon",
        ]);
        expect(await titles("?sort=rating")).toEqual(["Epsilon", "Alpha", "Gamma ray", "beta", "zeta ÉCLAIR", "delta"]);
        expect(await titles("?sort=-published,-rating")).toEqual([
          "zeta ÉCLAIR",
          "Alpha",
          "Gamma ray",
          "Epsilon",
          "delta",
          "beta",
        ]);
        expect(await ids("?sort=-id")).toEqual(posts.map((post) => post.id).reverse());
      });

      it("pages with limit and offset, with a Link to the next page and a count on request", async () => {
        const first = await list("?sort=-rating&limit=2&count=true");
        expect(first.headers.get("x-total-count")).toBe(String(posts.length));
        expect(first.records).toHaveLength(2);
        const link = first.headers.get("link");
        expect(link).toBe(`</blog/posts/v1/list?sort=-rating&limit=2&count=true&offset=2>; rel="next"`);
        const all: number[] = [];
        let next: string | null = "/posts/v1/list?sort=-rating&limit=2";
        while (next) {
          const page = await list(next.replace("/posts/v1/list", ""));
          all.push(...page.records.map((post) => post.id));
          next = page.headers.get("link")?.match(/<\/blog([^>]+)>/)?.[1] ?? null;
        }
        expect(all).toEqual(await ids("?sort=-rating"));
        expect((await list("?limit=100")).headers.get("link")).toBeNull();
        expect((await list("?limit=2")).headers.get("x-total-count")).toBeNull();
        expect(await ids("?offset=4")).toEqual(posts.slice(4).map((post) => post.id));
      });

      it("counts what the filters match, whatever the page", async () => {
        const page = await list("?published=true&limit=1&count=true");
        expect(page.headers.get("x-total-count")).toBe(String(idsOf((post) => post.published).length));
        expect(page.records.map((post) => post.id)).toEqual(idsOf((post) => post.published).slice(0, 1));
      });

      it("pages by id with after, forwards and (sort=-id) backwards, linking on with after", async () => {
        const [a, b, c, d] = posts.map((post) => post.id);
        expect(await ids(`?after=${b}&limit=2`)).toEqual([c, d]);
        const forward = await list(`?after=${a}&limit=2`);
        expect(forward.headers.get("link")).toBe(`</blog/posts/v1/list?after=${c}&limit=2>; rel="next"`);
        expect(await ids(`?after=${d}&sort=-id`)).toEqual([c, b, a]);
        expect(await ids(`?after=${c}&published=true`)).toEqual(idsOf((post) => post.id > c! && post.published));
      });
    });

    describe("a whole table larger than a batch", () => {
      it("is streamed, batch by batch, and reads byte for byte like the answer built at once", async () => {
        const rows = 2_345;
        await db.exec(
          database === "sqlite"
            ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
               INSERT INTO users (name, email, active, created_at)
               SELECT 'User ' || i, 'user' || i || '@example.com', i % 2, '2024-01-01T00:00:00.000+00:00' FROM n`
            : `INSERT INTO users (name, email, active, created_at)
               SELECT 'User ' || i, 'user' || i || '@example.com', i % 2 = 1, '2024-01-01T00:00:00Z'
               FROM generate_series(1, ${rows}) AS i`,
        );
        const whole = await api.get("/users/v1/list");
        expect(whole.status).toBe(200);
        expect(whole.headers.get("transfer-encoding")).toBe("chunked");
        expect(whole.headers.get("content-length")).toBeNull();
        expect(whole.headers.get("content-type")).toBe("application/json; charset=utf-8");

        // The same records a page at a time, each page serialized by the route's compiled serializer.
        const records: { id: number }[] = [];
        for (let after = 0; ;) {
          const page = await api.get(`/users/v1/list?limit=1000&after=${after}`);
          const data = (page.body as Envelope<{ id: number }[]>).data;
          records.push(...data);
          if (!page.headers.get("link")) break;
          after = data.at(-1)!.id;
        }
        expect(records.length).toBeGreaterThan(rows);
        expect(whole.text).toBe(JSON.stringify({ success: true, message: "Data found.", data: records }));
        expect((whole.body as Envelope<{ id: number }[]>).data.map((user) => user.id)).toEqual(
          records.map((user) => user.id),
        );
      });
      it("writes every kind of value as JSON.stringify does: doubles of any magnitude, escapes, date-times", async () => {
        const rows = 1_500;
        const userId = posts[0]!.user_id;
        const rating = `CASE i % 8 WHEN 0 THEN i * 0.1 WHEN 1 THEN 1e21 * i WHEN 2 THEN 1.5e-7 * i WHEN 3 THEN -0.0
          WHEN 4 THEN 1e15 + i WHEN 5 THEN NULL WHEN 6 THEN i / 3.0 ELSE -1e-6 * i END`;
        await db.exec(
          database === "sqlite"
            ? `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
               INSERT INTO posts (title, body, published, rating, user_id, published_at)
               SELECT 'Post "' || i || '"' || char(10, 1, 9) || '\\ é ✓ 😀 ,"rating":1e+16}', NULL, i % 2, ${rating}, ${userId},
                 CASE WHEN i % 3 = 0 THEN NULL ELSE '2024-02-29T23:59:59.000+00:00' END FROM n`
            : `INSERT INTO posts (title, body, published, rating, user_id, published_at)
               SELECT 'Post "' || i || '"' || chr(10) || chr(1) || chr(9) || '\\ é ✓ 😀 ,"rating":1e+16}', NULL, i % 2 = 1, ${rating},
                 ${userId}, CASE WHEN i % 3 = 0 THEN NULL ELSE '2024-02-29T23:59:59Z'::timestamptz END
               FROM generate_series(1, ${rows}) AS i`,
        );
        // And doubles of every magnitude, from 1e-30 to 1e30, of both signs.
        let seed = 7;
        const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
        const doubles = Array.from({ length: 1_100 }, (_, k) => (k % 2 ? -1 : 1) * random() * 10 ** ((k % 61) - 30));
        await db.exec(
          `INSERT INTO posts (title, published, rating, user_id) VALUES
           ${doubles.map((double) => `('double', ${database === "sqlite" ? 1 : "true"}, ${double}, ${userId})`).join(", ")}`,
        );
        const whole = await api.get("/posts/v1/list");
        expect(whole.headers.get("transfer-encoding")).toBe("chunked");
        const records: Post[] = [];
        for (let after = 0; ;) {
          const page = await list(`?limit=1000&after=${after}`);
          records.push(...page.records);
          if (!page.headers.get("link")) break;
          after = page.records.at(-1)!.id;
        }
        expect(records.length).toBeGreaterThan(rows);
        const ratings = records.map((post) => post.rating);
        for (const kind of [
          (r: number) => r >= 1e21,
          (r: number) => r !== 0 && Math.abs(r) < 1e-6,
          (r: number) => r > 1e15,
        ])
          expect(ratings.some((rating) => rating !== null && kind(rating))).toBe(true);
        const expected = JSON.stringify({ success: true, message: "Data found.", data: records });
        // Where they first differ, if they do: the whole text is too long to read in a failure.
        let at = 0;
        while (at < expected.length && whole.text[at] === expected[at]) at++;
        expect(whole.text.slice(at - 200, at + 100)).toBe(expected.slice(at - 200, at + 100));
        expect(whole.text).toBe(expected);
      });
    });

    describe("refusals, each a 400 with every problem", () => {
      it("names unknown parameters, fields and operators", async () => {
        await refused("?colour=red", "Invalid request: unknown parameter colour");
        await refused("?colour[gt]=1", "Invalid request: unknown parameter colour[gt]");
        await refused(
          "?rating[between]=1",
          "Invalid request: unknown operator rating[between]: use ne, gt, gte, lt, lte, in, contains or null",
        );
        await refused("?sort=colour,-", "Invalid request: unknown sort field colour; unknown sort field (empty)");
        await refused("?sort=rating,-rating", "Invalid request: sort names rating twice");
      });

      it("knows no name of JavaScript's objects as a field (issue 25)", async () => {
        for (const name of ["constructor", "toString", "valueOf", "__proto__", "hasOwnProperty"]) {
          await refused(`?sort=${name}`, `Invalid request: unknown sort field ${name}`);
          await refused(`?sort=-${name}`, `Invalid request: unknown sort field ${name}`);
          await refused(`?${name}=1`, `Invalid request: unknown parameter ${name}`);
          await refused(`?${name}[gt]=1`, `Invalid request: unknown parameter ${name}[gt]`);
        }
      });

      it("refuses an operator that does not fit the field's type", async () => {
        await refused(
          "?published[gt]=true",
          "Invalid request: published[gt] does not apply to published, which is true or false",
        );
        await refused(
          "?rating[contains]=1",
          "Invalid request: rating[contains] does not apply to rating, which is a number",
        );
        await refused(
          "?category_id[lt]=x",
          "Invalid request: category_id[lt] does not apply to category_id, which is a UUID",
        );
      });

      it("refuses values that do not parse as the field's type", async () => {
        await refused("?rating[gt]=high", "Invalid request: rating[gt] must be a number");
        await refused("?user_id=1.5", "Invalid request: user_id must be an integer");
        await refused("?user_id=99999999999", "Invalid request: user_id must be an integer");
        await refused("?published=yes", "Invalid request: published must be true or false");
        await refused(
          "?published_at[gt]=2024-01-01",
          "Invalid request: published_at[gt] must be a date-time with a time zone, like 2024-01-31T12:00:00Z",
        );
        await refused("?category_id=abc", "Invalid request: category_id must be a UUID");
        await refused("?rating[in]=1,x", "Invalid request: rating[in] must be a list of numbers, separated by commas");
        await refused("?rating[null]=1", "Invalid request: rating[null] must be true or false");
        await refused("?id=x", "Invalid request: id must be an integer");
      });

      it("refuses limits, offsets, counts and after out of range, and after with another sort", async () => {
        await refused("?limit=0", "Invalid request: limit must be an integer from 1 to 1000");
        await refused("?limit=1001", "Invalid request: limit must be an integer from 1 to 1000");
        await refused("?offset=-1", "Invalid request: offset must be a whole number, 0 or more");
        await refused("?count=yes", "Invalid request: count must be true or false");
        await refused("?after=abc", "Invalid request: after must be an integer");
        await refused(
          "?after=1&sort=title",
          "Invalid request: after pages in id order: it cannot be combined with sort on title",
        );
        await refused("?after=1&offset=2", "Invalid request: after and offset cannot be combined");
        await refused("?limit=1&limit=2", "Invalid request: limit must be given once");
      });

      it("reads numbers in the query string as a JSON body's numbers are read (issue 16)", async () => {
        const [first, second] = posts;
        // Integers as JSON may write them: 1e0, 1.0, 10E-1 are all 1; the same answer as the plain form.
        const same = async (json: string, plain: string) => {
          const expected = await ids(plain);
          expect(expected.length, plain).toBeGreaterThan(0);
          expect(await ids(json), json).toEqual(expected);
        };
        await same(`?user_id=${first!.user_id}e0`, `?user_id=${first!.user_id}`);
        await same(`?id[in]=${first!.id}.0,${second!.id}0E-1`, `?id[in]=${first!.id},${second!.id}`);
        await same("?limit=1e0&offset=1.0E0", "?limit=1&offset=1");
        await same(`?after=${first!.id}e0&limit=1`, `?after=${first!.id}&limit=1`);
        await same("?rating[gte]=5E0", "?rating[gte]=5");
        expect(await ids("?rating[lte]=-0&rating[gte]=-0.0e0")).toEqual(await ids("?rating[lte]=0&rating[gte]=0"));
        // What JSON refuses is refused here too: a plus sign, a leading zero, a bare point.
        await refused("?rating=+3", "Invalid request: rating must be a number");
        await refused("?rating=03", "Invalid request: rating must be a number");
        await refused("?rating[lt]=.5", "Invalid request: rating[lt] must be a number");
        await refused("?rating=1e400", "Invalid request: rating must be a number");
        await refused("?user_id=15e-1", "Invalid request: user_id must be an integer");
        await refused("?limit=1.5", "Invalid request: limit must be an integer from 1 to 1000");
      });

      it("lists every problem at once, joined with '; '", async () => {
        await refused(
          "?colour=red&limit=0&rating[gt]=x",
          "Invalid request: unknown parameter colour; limit must be an integer from 1 to 1000; rating[gt] must be a number",
        );
      });
    });
  });
}
