import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { exchange, type Answer } from "./fuzz/wire.ts";
import { client, failure, type Client } from "./helpers/http.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Hostile input, each case found by fuzzing (issue 17), answered in the envelope with a status
// below 500: values neither database may store differently, methods, and every refusal of Node's
// HTTP layer (parser errors, oversized headers, timeouts) over a raw socket.

const KEY = "hostile-key-0a1b2c3d4e";
const postgresUrl = inject("postgresUrl");
const MALFORMED = failure("Invalid request: malformed HTTP request");

/** Sends raw bytes on a fresh connection and reads the answer. */
function raw(port: number, text: string, { finish = true, deadlineMs = 5000 } = {}): Promise<Answer> {
  const request = { kind: "test", method: text.split(" ")[0]!, bytes: Buffer.from(text, "latin1"), pieces: 1, finish };
  return exchange(port, request, deadlineMs);
}

const json = (answer: Answer) => JSON.parse(answer.body.toString("utf8")) as unknown;

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`hostile values on ${database}`, () => {
    let server: RunningServer;
    let api: Client;

    beforeAll(async () => {
      const { dir } = await sharedExample("blog", database);
      const db = await exampleDatabase("blog", database);
      server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
      api = client(`${server.url}/blog`, KEY);
    });

    afterAll(async () => {
      await server?.stop();
    });

    const user = (fields: Record<string, unknown>) => ({
      name: "Ada",
      email: `ada-${Math.random().toString(36).slice(2)}@example.com`,
      ...fields,
    });

    it("refuses a NUL character in any text value, naming the field", async () => {
      const create = await api.post("/users/v1/create", user({ name: "a\u0000b", bio: "\u0000" }));
      expect(create.status).toBe(400);
      expect(create.body).toEqual(
        failure("Invalid request: name must not contain the NUL character; bio must not contain the NUL character"),
      );
      const created = await api.post("/users/v1/create", user({}));
      const id = (created.body as { data: { id: number } }).data.id;
      const update = await api.post(`/users/v1/update/${id}`, { phone: "\u0000" });
      expect(update.body).toEqual(failure("Invalid request: phone must not contain the NUL character"));
      const list = await api.get("/users/v1/list?name=a%00b");
      expect(list.status).toBe(400);
      expect(list.body).toEqual(failure("Invalid request: name must not contain the NUL character"));
      const contains = await api.get("/users/v1/list?bio[contains]=%00");
      expect(contains.body).toEqual(failure("Invalid request: bio[contains] must not contain the NUL character"));
      const query = await api.get("/v1/category_posts?category_id=%00");
      expect(query.status).toBe(400);
      expect(query.body).toEqual(failure("Invalid request: category_id must not contain the NUL character"));
    });

    it("refuses lone UTF-16 surrogates, naming the field, and keeps paired ones", async () => {
      const lone = await api.request("POST", "/users/v1/create", {
        raw: '{"name":"a\\ud800b","email":"lone@example.com","bio":"\\udc00"}',
        headers: { "content-type": "application/json" },
      });
      expect(lone.status).toBe(400);
      expect(lone.body).toEqual(
        failure(
          "Invalid request: name must not contain a lone UTF-16 surrogate; bio must not contain a lone UTF-16 surrogate",
        ),
      );
      const paired = await api.request("POST", "/users/v1/create", {
        raw: '{"name":"\\ud83d\\ude00","email":"paired@example.com"}',
        headers: { "content-type": "application/json" },
      });
      expect(paired.status).toBe(201);
      expect((paired.body as { data: { name: string } }).data.name).toBe("😀");
    });

    it("refuses date-times whose instant falls outside the years 0001 to 9999, and stores the bounds alike", async () => {
      const message = "Invalid request: created_at must be a date-time with a time zone, like 2024-01-31T12:00:00Z";
      for (const created_at of [
        "9999-12-31T23:59:59-23:59",
        "0000-01-01T00:00:00+01:00",
        "0001-01-01T00:30:00+01:00",
      ]) {
        const answer = await api.post("/users/v1/create", user({ created_at }));
        expect(answer.status, created_at).toBe(400);
        expect(answer.body).toEqual(failure(message));
      }
      for (const [given, stored] of [
        ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"],
        ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59Z"],
        ["0001-01-01T01:00:00+01:00", "0001-01-01T00:00:00Z"],
      ]) {
        const answer = await api.post("/users/v1/create", user({ created_at: given }));
        expect(answer.status, given).toBe(201);
        const { id, created_at } = (answer.body as { data: { id: number; created_at: string } }).data;
        expect(created_at).toBe(stored);
        expect(((await api.get(`/users/v1/show/${id}`)).body as { data: { created_at: string } }).data.created_at).toBe(
          stored,
        );
      }
      const filter = await api.get(`/users/v1/list?created_at[gt]=${encodeURIComponent("0000-12-31T22:00:00-01:00")}`);
      expect(filter.body).toEqual(
        failure("Invalid request: created_at[gt] must be a date-time with a time zone, like 2024-01-31T12:00:00Z"),
      );
      const query = await api.get(
        `/v2/recent_posts?since=${encodeURIComponent("9999-12-31T23:59:59-00:01")}&published=true`,
      );
      expect(query.body).toEqual(
        failure("Invalid request: since must be a date-time with a time zone, like 2024-01-31T12:00:00Z"),
      );
    });

    it("answers a path id longer than 100 characters like any impossible id: 404", async () => {
      for (const path of [`/users/v1/show/${"1".repeat(101)}`, `/categories/v1/show/${"a".repeat(150)}`]) {
        const answer = await api.get(path);
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual(failure("Data not found"));
      }
    });
  });
}

describe("hostile HTTP", () => {
  let server: RunningServer;
  let api: Client;
  let port: number;
  const signed = `Host: x\r\nX-API-SIGNATURE: ${KEY}\r\n`;

  beforeAll(async () => {
    const { dir } = await sharedExample("blog");
    const db = await exampleDatabase("blog");
    server = await startTranspiled(dir, {
      DATABASE_URL: db.url,
      API_SIGNATURE_KEY: KEY,
      HEADERS_TIMEOUT_MS: "1000",
      REQUEST_TIMEOUT_MS: "1500",
    });
    api = client(`${server.url}/blog`, KEY);
    port = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("answers every method Node parses with 405 and Allow on a known path", async () => {
    for (const method of ["PROPFIND", "TRACE", "SEARCH", "PURGE", "LOCK", "MKCOL", "QUERY"]) {
      const answer = await raw(port, `${method} /blog/users/v1/list HTTP/1.1\r\n${signed}\r\n`);
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD");
      expect(json(answer)).toEqual(failure("Method not allowed"));
    }
    const withId = await raw(port, `PROPFIND /blog/users/v1/update/5/ HTTP/1.1\r\n${signed}\r\n`);
    expect(withId.status).toBe(405);
    expect(withId.headers.allow).toBe("POST");
    const unknown = await raw(port, `PROPFIND /blog/users/v1/nope HTTP/1.1\r\n${signed}\r\n`);
    expect(unknown.status).toBe(404);
    expect(json(unknown)).toEqual(failure("Data not found"));
    const unsigned = await raw(port, "TRACE /blog/users/v1/list HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(unsigned.status).toBe(401);
  });

  it("routes CONNECT like any other request: the key, then 405 or 404, and closes", async () => {
    const known = await raw(port, `CONNECT /blog/users/v1/create HTTP/1.1\r\n${signed}\r\n`, { finish: false });
    expect(known.status).toBe(405);
    expect(known.headers.allow).toBe("POST");
    expect(known.headers.connection).toBe("close");
    expect(json(known)).toEqual(failure("Method not allowed"));
    const authority = await raw(port, `CONNECT example.com:443 HTTP/1.1\r\n${signed}\r\n`, { finish: false });
    expect(authority.status).toBe(404);
    expect(json(authority)).toEqual(failure("Data not found"));
    const unsigned = await raw(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", { finish: false });
    expect(unsigned.status).toBe(401);
  });

  it("answers an unknown path with 404 before reading its body (QUERY without a body, broken JSON)", async () => {
    const query = await raw(port, `QUERY /nope HTTP/1.1\r\n${signed}\r\n`);
    expect(query.status).toBe(404);
    expect(json(query)).toEqual(failure("Data not found"));
    const broken = await api.request("POST", "/nope", { raw: "{bad", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(404);
    expect(broken.body).toEqual(failure("Data not found"));
    const wrongMethod = await api.request("PUT", "/users/v1/list", {
      raw: "{bad",
      headers: { "content-type": "application/json" },
    });
    expect(wrongMethod.status).toBe(405);
  });

  it.each([
    ["an invalid byte in a header", `GET /blog/users/v1/list HTTP/1.1\r\n${signed}X-Bad: a\u0001b\r\n\r\n`],
    [
      "Content-Length with Transfer-Encoding",
      `POST /blog/users/v1/create HTTP/1.1\r\n${signed}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      "two different Content-Lengths",
      `POST /blog/users/v1/create HTTP/1.1\r\n${signed}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    ],
    [
      "a bad chunk size",
      `POST /blog/users/v1/create HTTP/1.1\r\n${signed}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    ["a lower-case method", `get /blog/users/v1/list HTTP/1.1\r\n${signed}\r\n`],
    ["an unknown method", `FOO /blog/users/v1/list HTTP/1.1\r\n${signed}\r\n`],
    ["a header without a colon", `GET /blog/users/v1/list HTTP/1.1\r\n${signed}NoColon\r\n\r\n`],
    ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
    ["a TLS handshake", "\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003"],
    ["an HTTP/1.1 request without Host", `GET /blog/users/v1/list HTTP/1.1\r\nX-API-SIGNATURE: ${KEY}\r\n\r\n`],
    [
      "a request cut short",
      `POST /blog/users/v1/create HTTP/1.1\r\n${signed}Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"name":`,
    ],
  ])("answers %s with 400 in the envelope and closes the connection", async (_case, text) => {
    const answer = await raw(port, text);
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers.connection?.toLowerCase()).toBe("close");
    expect(json(answer)).toEqual(MALFORMED);
  });

  it("answers headers larger than Node's limit with 431 in the envelope", async () => {
    const answer = await raw(port, `GET /blog/users/v1/list HTTP/1.1\r\n${signed}X-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(json(answer)).toEqual(failure("Request header fields too large"));
    const longUrl = await raw(port, `GET /blog/users/v1/list?${"a".repeat(20_000)}=1 HTTP/1.1\r\n${signed}\r\n`);
    expect(longUrl.status).toBe(431);
  });

  it("answers headers or a body that do not arrive in time with 408 in the envelope", async () => {
    const started = performance.now();
    const [headers, body] = await Promise.all([
      raw(port, `GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\nX-API-SIG`, { finish: false }),
      raw(
        port,
        `POST /blog/users/v1/create HTTP/1.1\r\n${signed}Content-Type: application/json\r\nContent-Length: 60\r\n\r\n{"name":"slow"`,
        { finish: false },
      ),
    ]);
    for (const answer of [headers, body]) {
      expect(answer.status).toBe(408);
      expect(json(answer)).toEqual(failure("Request timeout"));
      expect(answer.headers.connection).toBe("close");
    }
    // HEADERS_TIMEOUT_MS 1000 and REQUEST_TIMEOUT_MS 1500, checked every second.
    expect(headers.ms).toBeLessThan(2500);
    expect(performance.now() - started).toBeLessThan(3500);
  });

  it("answers a client that closes its side once the request is sent, and ignores an unknown Expect", async () => {
    const halfClosed = await raw(port, `GET /blog/users/v1/list HTTP/1.1\r\n${signed}\r\n`, { finish: true });
    expect(halfClosed.status).toBe(200);
    const expect417 = await raw(port, `GET /blog/users/v1/list HTTP/1.1\r\n${signed}Expect: something\r\n\r\n`);
    expect(expect417.status).toBe(200);
  });

  it("refuses a large body nested past 64 levels before parsing it", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const answer = await api.request("POST", "/users/v1/create", {
      raw: deep,
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failure("Invalid request: body nests arrays or objects more than 64 deep"));
  });
});
