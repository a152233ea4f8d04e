import { METHODS } from "node:http";
import { Random } from "./random.ts";

// Hostile HTTP requests for the blog example (examples/blog.yaml), as raw bytes: valid API calls
// among random and truncated bodies, mutated JSON, hostile values, many content types, header
// faults, long and oddly encoded URLs, every method Node parses and some it does not, and broken
// framing. The same seed gives the same requests.

export interface FuzzRequest {
  /** What kind of request it is, for the report. */
  kind: string;
  /** The method as sent (a HEAD answer has no body). */
  method: string;
  bytes: Buffer;
  /** Written in this many pieces, a short pause apart (a slow client); 1 writes at once. */
  pieces: number;
  /** Whether the client closes its side after writing (else the server must notice the silence). */
  finish: boolean;
}

/** A field of the blog example: its kind decides valid and hostile values. */
type Kind =
  "text" | "email" | "phone" | "paragraph" | "boolean" | "datetime" | "number" | "userRef" | "postRef" | "categoryRef";

interface Table {
  name: string;
  versions: string[];
  uuid: boolean;
  fields: Record<string, Kind>;
  required: string[];
}

export const TABLES: Table[] = [
  {
    name: "users",
    versions: ["v1", "v2"],
    uuid: false,
    fields: {
      name: "text",
      email: "email",
      phone: "phone",
      bio: "paragraph",
      active: "boolean",
      created_at: "datetime",
    },
    required: ["name", "email"],
  },
  {
    name: "posts",
    versions: ["v1", "v2"],
    uuid: false,
    fields: {
      title: "text",
      body: "paragraph",
      published: "boolean",
      rating: "number",
      user_id: "userRef",
      category_id: "categoryRef",
      published_at: "datetime",
    },
    required: ["title", "user_id"],
  },
  { name: "categories", versions: ["v1"], uuid: true, fields: { name: "text" }, required: ["name"] },
  {
    name: "comments",
    versions: ["v2"],
    uuid: false,
    fields: { post_id: "postRef", author: "text", text: "paragraph" },
    required: ["post_id", "author", "text"],
  },
];

/** Ids the run may refer to: numbers near those created, and uuids of categories it created. */
export interface Known {
  maxId: number;
  categories: string[];
}

const HOSTILE_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udc00y",
  "\ud83d\ude00",
  "😀".repeat(100),
  "é".repeat(300),
  "a".repeat(256),
  "a".repeat(20_000),
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  '" OR 1=1 --',
  "1; SELECT pg_sleep(5)",
  "$1",
  ":category_id",
  "%s%s%s%n",
  "{{7*7}}",
  "${7*7}",
  "<script>alert(1)</script>",
  "../../../../etc/passwd",
  "\\",
  "\r\n\r\nHTTP/1.1 200 OK",
  "\u202e\ufeff\u200b",
  "null",
  "true",
  "NaN",
  "\u00ff\u0100\uffff",
];

const HOSTILE_DATES = [
  "9999-12-31T23:59:59-23:59",
  "0000-01-01T00:00:00+01:00",
  "0001-01-01T00:30:00+01:00",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "9999-12-31T23:59:59.999999999Z",
  "2024-02-30T00:00:00Z",
  "2024-02-29T12:00:00Z",
  "2023-02-29T12:00:00Z",
  "2024-01-01T24:00:00Z",
  "2024-01-01T00:00:60Z",
  "2024-01-01",
  "2024-01-01T00:00:00",
  "2024-01-01T00:00:00+24:00",
  "+002024-01-01T00:00:00Z",
  "2024-01-01 00:00:00z",
  "2024-13-01T00:00:00Z",
  "0099-06-15T00:00:00Z",
  "1970-01-01T00:00:00-00:00",
];

/** Numbers as JSON text: some are not numbers JavaScript can hold (1e400 parses as Infinity). */
const HOSTILE_NUMBERS = [
  "0",
  "-0",
  "1e308",
  "-1e308",
  "1e400",
  "-1e400",
  "5e-324",
  "1e-400",
  "2147483647",
  "2147483648",
  "-2147483649",
  "9007199254740993",
  "123456789012345678901234567890",
  "1.5",
  "1E2",
  "0.1e1",
];

const OTHER_VALUES = ["true", "false", "null", "[]", "{}", "[1,2]", '{"a":1}', '"x"', "[[[[[[]]]]]]"];

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "application/json;charset=latin1",
  "APPLICATION/JSON",
  "application/json;;",
  'application/json; charset="utf-8"',
  "application/problem+json",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "text/json",
  "text/plain",
  "text/plain; charset=utf-8",
  "text/html",
  "text/xml",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "multipart/form-data",
  "application/octet-stream",
  "image/png",
  "*/*",
  "",
  ";",
  "application/",
  "/json",
  "json",
  "application/json, text/plain",
  "application/json; boundary=",
  "application/x-ndjson",
  "application/javascript",
];

const ODD_METHODS = ["get", "Post", "FOO", "GETS", "G ET", "", "PRI", "HTTP/1.1", "A".repeat(300), "DELETE\u0000"];

const SEPARATOR = "\r\n";

export class RequestGenerator {
  private readonly random: Random;

  constructor(
    seed: number,
    private readonly key: string,
    private readonly known: Known,
  ) {
    this.random = new Random(seed);
  }

  /** The next request. */
  next(): FuzzRequest {
    const random = this.random;
    const build = random.weighted<() => FuzzRequest>([
      [30, () => this.apiCall()],
      [14, () => this.mutatedBody()],
      [8, () => this.contentType()],
      [12, () => this.headerFault()],
      [10, () => this.oddUrl()],
      [8, () => this.oddMethod()],
      [9, () => this.brokenFraming()],
      [4, () => this.junk()],
      [3, () => this.slowClient()],
      [2, () => this.incomplete()],
    ]);
    return build();
  }

  // -------------------------------------------------------------------------------------------
  // Values and bodies

  private id(table: Table): string {
    const random = this.random;
    if (table.uuid) {
      if (this.known.categories.length > 0 && random.chance(0.7)) return random.pick(this.known.categories);
      return random.pick([
        "00000000-0000-0000-0000-000000000000",
        "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
        "not-a-uuid",
        "1",
      ]);
    }
    return random.weighted([
      [8, () => String(random.int(1, this.known.maxId + 5))],
      [
        1,
        () => random.pick(["0", "-1", "1e0", "1.0", "10E-1", "+1", "01", ".5", "0x10", "2147483648", "1".repeat(101)]),
      ],
      [1, () => random.pick(["abc", "%20", "1;", "1'", "1%00", "%E2%82%AC", "1e400", "NaN", "Infinity"])],
    ])();
  }

  private validValue(kind: Kind): string {
    const random = this.random;
    const serial = random.int(1, 1e9);
    switch (kind) {
      case "text":
        return JSON.stringify(`fuzz ${serial}`);
      case "email":
        return JSON.stringify(`fuzz${serial}@example.com`);
      case "phone":
        return JSON.stringify(`+1 555 ${String(serial).padStart(7, "0").slice(0, 7)}`);
      case "paragraph":
        return JSON.stringify(`A paragraph ${serial}.`);
      case "boolean":
        return random.pick(["true", "false"]);
      case "datetime":
        return JSON.stringify(`20${random.int(10, 30)}-0${random.int(1, 9)}-1${random.int(0, 9)}T12:34:56Z`);
      case "number":
        return String(random.int(-1000, 1000) / 4);
      case "userRef":
      case "postRef":
        return String(random.int(1, Math.max(1, this.known.maxId)));
      case "categoryRef":
        return this.known.categories.length > 0 && random.chance(0.8)
          ? JSON.stringify(random.pick(this.known.categories))
          : "null";
    }
  }

  private hostileValue(kind: Kind): string {
    const random = this.random;
    return random.weighted<() => string>([
      [4, () => JSON.stringify(random.pick(HOSTILE_TEXT))],
      [kind === "datetime" ? 6 : 1, () => JSON.stringify(random.pick(HOSTILE_DATES))],
      [kind === "number" || kind.endsWith("Ref") ? 5 : 1, () => random.pick(HOSTILE_NUMBERS)],
      [2, () => random.pick(OTHER_VALUES)],
      [1, () => this.validValue(kind)],
    ])();
  }

  /** A body for a table: its fields, some valid, some hostile, some unknown or refused keys. */
  private body(table: Table, { hostile }: { hostile: boolean }): string {
    const random = this.random;
    const entries: string[] = [];
    for (const [field, kind] of Object.entries(table.fields)) {
      const required = table.required.includes(field);
      if (!required && random.chance(0.5)) continue;
      if (required && hostile && random.chance(0.1)) continue;
      entries.push(
        `${JSON.stringify(field)}:${hostile && random.chance(0.35) ? this.hostileValue(kind) : this.validValue(kind)}`,
      );
    }
    if (hostile && random.chance(0.15)) {
      entries.push(
        random.pick([
          '"id":1',
          '"unknown":1',
          '"__proto__":{"admin":true}',
          '"constructor":{"prototype":{"admin":true}}',
          '"\\u005f_proto__":{}',
          '"name":"a","name":"b"',
          '"":""',
          '"a\\u0000b":1',
        ]),
      );
    }
    return `{${entries.join(",")}}`;
  }

  private apiTarget(): { table: Table; version: string } {
    const table = this.random.pick(TABLES);
    const version = this.random.chance(0.95)
      ? this.random.pick(table.versions)
      : this.random.pick(["v1", "v2", "v3", "V1"]);
    return { table, version };
  }

  /** An API call as a client would make it, with valid or hostile values. */
  private apiCall(): FuzzRequest {
    const random = this.random;
    const { table, version } = this.apiTarget();
    const base = `/blog/${table.name}/${version}`;
    const hostile = random.chance(0.4);
    const operation = random.weighted([
      [5, "create"],
      [2, "update"],
      [3, "show"],
      [3, "list"],
      [1, "delete"],
      [2, "query"],
    ] as const);
    switch (operation) {
      case "create":
        return this.json("POST", `${base}/create`, this.body(table, { hostile }), "api");
      case "update":
        return this.json("POST", `${base}/update/${this.id(table)}`, this.body(table, { hostile }), "api");
      case "show":
        return this.plain(random.pick(["GET", "GET", "HEAD"]), `${base}/show/${this.id(table)}`, "api");
      case "delete":
        return this.plain("DELETE", `${base}/delete/${this.id(table)}`, "api");
      case "list":
        return this.plain(random.pick(["GET", "GET", "HEAD"]), `${base}/list${this.listQuery(table)}`, "api");
      case "query":
        return this.plain("GET", this.queryUrl(), "api");
    }
  }

  private listQuery(table: Table): string {
    const random = this.random;
    if (random.chance(0.3)) return "";
    const fields = ["id", ...Object.keys(table.fields)];
    const parts: string[] = [];
    for (let count = random.int(1, 4); count > 0; count--) {
      const field = random.chance(0.9)
        ? random.pick(fields)
        : random.pick(["nope", "__proto__", "constructor", "a[b][c]"]);
      const value = random.chance(0.6)
        ? encodeURIComponent(random.pick(["1", "fuzz", "true", "2024-01-01T00:00:00Z", "a,b", "", "null"]))
        : random.pick([
            "%00",
            "%ED%A0%80",
            "%FF",
            "%zz",
            "x%00y",
            "%E2%82%AC",
            "'%20OR%201=1",
            encodeURIComponent("😀"),
          ]);
      parts.push(
        random.weighted([
          [3, `${field}=${value}`],
          [
            2,
            `${field}[${random.pick(["ne", "gt", "gte", "lt", "lte", "in", "contains", "null", "like", ""])}]=${value}`,
          ],
          [1, `limit=${random.pick(["1", "1000", "1001", "0", "-1", "1e3", "x"])}`],
          [1, `sort=${random.pick(["-id", "name,-id", "-", ",", "nope", "id,id"])}`],
          [1, `after=${value}`],
          [1, `count=${random.pick(["true", "false", "1"])}`],
          [1, `offset=${random.pick(["0", "5", "-1", "1e20"])}`],
        ]),
      );
    }
    return `?${parts.join("&")}`;
  }

  private queryUrl(): string {
    const random = this.random;
    const version = random.pick(["v1", "v2"]);
    if (random.chance(0.5)) {
      const category = this.known.categories.length > 0 ? random.pick(this.known.categories) : "x";
      const value = random.pick([
        encodeURIComponent(category),
        "%00",
        "%ED%A0%80",
        "x",
        "",
        encodeURIComponent("' OR 1=1 --"),
      ]);
      return `/blog/${version}/category_posts${random.chance(0.9) ? `?category_id=${value}` : ""}${random.chance(0.1) ? "&extra=1" : ""}`;
    }
    const since = random.pick([
      "2020-01-01T00:00:00Z",
      "9999-12-31T23:59:59-23:59",
      "0000-01-01T00:00:00Z",
      "x",
      "%00",
    ]);
    const published = random.pick(["true", "false", "1", ""]);
    return `/blog/v2/recent_posts?since=${encodeURIComponent(since)}&published=${published}`;
  }

  /** A body that is broken JSON: truncated, flipped, padded, nested, binary or huge. */
  private mutatedBody(): FuzzRequest {
    const random = this.random;
    const { table, version } = this.apiTarget();
    const target = random.chance(0.7)
      ? `/blog/${table.name}/${version}/create`
      : `/blog/${table.name}/${version}/update/${this.id(table)}`;
    const text = this.body(table, { hostile: true });
    const body = random.weighted<() => string | Buffer>([
      [3, () => text.slice(0, random.int(0, text.length - 1))],
      [2, () => flip(text, random)],
      [1, () => `${text},`],
      [1, () => `${text}${text}`],
      [1, () => `\ufeff${text}`],
      [1, () => text.replace(/"/g, "'")],
      [1, () => `/* comment */${text}`],
      [1, () => "[".repeat(random.int(10, 200_000))],
      [1, () => `${"[".repeat(5000)}${"]".repeat(5000)}`],
      [1, () => `{"a":${'{"a":'.repeat(2000)}1${"}".repeat(2001)}`],
      [1, () => `[${"1,".repeat(random.int(1000, 100_000))}1]`],
      [1, () => `{"title":"${"x".repeat(random.int(1000, 900_000))}","user_id":1}`],
      [1, () => random.bytes(random.int(1, 2000))],
      [1, () => random.pick(["", " ", "null", "true", "0", '"x"', "[]", "{}", "{", "}", "\u0000"])],
      [1, () => text.replace(/"([a-z_]+)":/, '"\\u00$1":')],
    ])();
    return this.json("POST", target, body, "mutated-body");
  }

  private contentType(): FuzzRequest {
    const random = this.random;
    const { table, version } = this.apiTarget();
    const body = random.chance(0.7) ? this.body(table, { hostile: false }) : "name=x&email=y";
    return this.raw(
      "POST",
      `/blog/${table.name}/${version}/create`,
      [["Content-Type", random.pick(CONTENT_TYPES)]],
      body,
      "content-type",
    );
  }

  private headerFault(): FuzzRequest {
    const random = this.random;
    const path = `/blog/users/v1/${random.pick(["list", "create", "show/1"])}`;
    const body = this.body(TABLES[0]!, { hostile: false });
    const length = Buffer.byteLength(body);
    const json: [string, string] = ["Content-Type", "application/json"];
    const fault = random.weighted<() => { headers: [string, string][]; body?: string; omit?: string[]; line?: string }>(
      [
        [2, () => ({ headers: [], omit: ["X-API-SIGNATURE"] })],
        [
          2,
          () => ({
            headers: [
              [
                "X-API-SIGNATURE",
                random.pick(["wrong", "", " ", `${this.key} `, this.key.toUpperCase(), `${this.key},x`]),
              ],
            ],
            omit: ["X-API-SIGNATURE"],
          }),
        ],
        [1, () => ({ headers: [["X-API-SIGNATURE", this.key]] })],
        [1, () => ({ headers: [["X-Bad", "a\u0001b"]] })],
        [1, () => ({ headers: [["X-Bad", "a\u0000b"]] })],
        [1, () => ({ headers: [["Bad Header", "x"]] })],
        [1, () => ({ headers: [], line: "NoColonHere" })],
        [1, () => ({ headers: [["X-Fold", "a\r\n b"]] })],
        [1, () => ({ headers: [["X-Big", "a".repeat(random.int(9000, 40_000))]] })],
        [
          1,
          () => ({
            headers: Array.from({ length: random.int(100, 3000) }, (_, i) => [`X-H${i}`, "v"] as [string, string]),
          }),
        ],
        [
          2,
          () => ({
            headers: [json, ["Content-Length", String(length)], ["Transfer-Encoding", "chunked"]],
            body: chunked(body),
            omit: ["Content-Length"],
          }),
        ],
        [
          2,
          () => ({
            headers: [json, ["Content-Length", String(length)], ["Content-Length", String(length + 1)]],
            body,
            omit: ["Content-Length"],
          }),
        ],
        [
          1,
          () => ({
            headers: [json, ["Content-Length", String(length)], ["Content-Length", String(length)]],
            body,
            omit: ["Content-Length"],
          }),
        ],
        [
          1,
          () => ({
            headers: [
              json,
              ["Content-Length", random.pick(["-1", "abc", "+5", "1e3", " 5", "0x10", "99999999999999999999"])],
            ],
            body,
            omit: ["Content-Length"],
          }),
        ],
        [
          1,
          () => ({
            headers: [
              json,
              [
                "Transfer-Encoding",
                random.pick(["gzip", "chunked, chunked", "CHUNKED", "identity", "chunked;q=1", "x"]),
              ],
            ],
            body: chunked(body),
            omit: ["Content-Length"],
          }),
        ],
        [
          2,
          () => ({
            headers: [json, ["Transfer-Encoding", "chunked"]],
            body: random.pick([
              "zz\r\nabc\r\n0\r\n\r\n",
              "fffffffffffffffff\r\nx\r\n",
              "5\r\nabc\r\n0\r\n\r\n",
              "3;ext=1\r\nabc\r\n0\r\n\r\n",
              "3\nabc\n0\n\n",
              "-1\r\n\r\n",
            ]),
            omit: ["Content-Length"],
          }),
        ],
        [1, () => ({ headers: [], omit: ["Host"] })],
        [
          1,
          () => ({
            headers: [
              ["Host", "a"],
              ["Host", "b"],
            ],
            omit: ["Host"],
          }),
        ],
        [1, () => ({ headers: [json, ["Expect", random.pick(["100-continue", "foo", ""])]], body })],
        [
          1,
          () => ({
            headers: [
              ["Connection", "Upgrade"],
              ["Upgrade", random.pick(["websocket", "h2c", "HTTP/2.0"])],
            ],
          }),
        ],
        [
          1,
          () => ({
            headers: [
              ["Accept", random.pick(["text/html", "application/xml", "*/*;q=0", "\u00ff"])],
              ["Accept-Encoding", "gzip, br"],
            ],
          }),
        ],
      ],
    )();
    const method = fault.body !== undefined ? "POST" : "GET";
    return this.raw(method, path, fault.headers, fault.body, "header-fault", {
      omit: fault.omit,
      extraLine: fault.line,
    });
  }

  private oddUrl(): FuzzRequest {
    const random = this.random;
    const url = random.pick<() => string>([
      () => `/blog/users/v1/show/${"9".repeat(random.int(90, 120))}`,
      () => `/blog/users/v1/list?${"a".repeat(random.int(2000, 30_000))}=1`,
      () => `/${"x/".repeat(random.int(100, 5000))}`,
      () => "/blog/users/v1/%zz",
      () => "/blog/users/v1/show/%00",
      () => "/blog/%2e%2e/blog/users/v1/list",
      () => "/blog/../blog/users/v1/list",
      () => "//blog//users//v1//list",
      () => "/blog/users/v1/list/",
      () => "/blog/users/v1/list?&&&=&==",
      () => "/blog/users/v1/list?__proto__[x]=1&constructor[prototype][x]=1",
      () => "/blog/users/v1/list?name=a&name=b",
      () => "/blog/users/v1/list#fragment",
      () => "/blog/users/v1/list?" + "x=%".repeat(50),
      () => "/blog/users/v1/show/1e0",
      () => "/blog/categories/v1/show/00000000-0000-0000-0000-00000000000G",
      () => "/blog/us%65rs/v1/list",
      () => "/BLOG/USERS/V1/LIST",
      () => "/blog/users/v1/list;jsessionid=1",
      () => "/blog/users/v1/list\u00e9",
      () => "/blog/users/v1/li st",
      () => "*",
      () => "http://127.0.0.1/blog/users/v1/list",
      () => "blog/users/v1/list",
      () => "",
      () => "/blog/v1/category_posts?category_id=%ED%A0%80",
      () => "/blog/v9/openapi.json",
      () => "/blog/v1/openapi.json",
      () => "/blog/docs",
      () => "/favicon.ico",
      () => "/blog/users/v1/list?limit=1&limit=2",
    ])();
    return this.raw(random.pick(["GET", "GET", "POST", "DELETE"]), url, [], undefined, "odd-url");
  }

  private oddMethod(): FuzzRequest {
    const random = this.random;
    const method = random.chance(0.75) ? random.pick(METHODS) : random.pick(ODD_METHODS);
    const path = random.pick([
      "/blog/users/v1/list",
      "/blog/users/v1/create",
      "/blog/users/v1/show/1",
      "/nope",
      "/blog/v1/category_posts?category_id=x",
    ]);
    const body = random.chance(0.3) ? this.body(TABLES[0]!, { hostile: false }) : undefined;
    const headers: [string, string][] = body !== undefined ? [["Content-Type", "application/json"]] : [];
    return this.raw(method, path, headers, body, "method");
  }

  private brokenFraming(): FuzzRequest {
    const random = this.random;
    const body = this.body(TABLES[0]!, { hostile: false });
    const head = `POST /blog/users/v1/create HTTP/1.1${SEPARATOR}Host: 127.0.0.1${SEPARATOR}X-API-SIGNATURE: ${this.key}${SEPARATOR}Content-Type: application/json${SEPARATOR}`;
    const text = random.pick<() => string>([
      () => `GET /blog/users/v1/list HTTP/1.1\nHost: x\nX-API-SIGNATURE: ${this.key}\n\n`,
      () => `GET /blog/users/v1/list HTTP/1.1\r\nHost: x\nX-API-SIGNATURE: ${this.key}\r\n\r\n`,
      () => `GET /blog/users/v1/list HTTP/1.0\r\nX-API-SIGNATURE: ${this.key}\r\n\r\n`,
      () => `GET /blog/users/v1/list HTTP/2.0\r\nHost: x\r\n\r\n`,
      () => `GET /blog/users/v1/list HTTP/9.9\r\nHost: x\r\n\r\n`,
      () => `GET /blog/users/v1/list http/1.1\r\nHost: x\r\n\r\n`,
      () => `GET /blog/users/v1/list\r\n\r\n`,
      () => `GET  /blog/users/v1/list  HTTP/1.1\r\nHost: x\r\n\r\n`,
      () => `GET /blog/users/v1/list HTTP/1.1 extra\r\nHost: x\r\n\r\n`,
      () => `\r\n\r\nGET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${this.key}\r\n\r\n`,
      () => `${head}Content-Length: ${Buffer.byteLength(body) - 5}${SEPARATOR}${SEPARATOR}${body}`,
      () => `${head}Content-Length: ${Buffer.byteLength(body) + 10}${SEPARATOR}${SEPARATOR}${body}`,
      () =>
        `${head}Content-Length: ${Buffer.byteLength(body)}${SEPARATOR}${SEPARATOR}${body}GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\n\r\n`,
      () => `${head}Transfer-Encoding: chunked${SEPARATOR}${SEPARATOR}${chunked(body).slice(0, -5)}`,
      () => `${head}${SEPARATOR}`,
      () =>
        `GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${this.key}\r\nConnection: keep-alive\r\n\r\nGET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\n\r\n`,
      () => `GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n`,
      () => `GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\nX-A : spaced\r\n\r\n`,
    ])();
    return {
      kind: "framing",
      method: text.split(" ")[0] ?? "",
      bytes: Buffer.from(text, "latin1"),
      pieces: 1,
      finish: true,
    };
  }

  private junk(): FuzzRequest {
    const random = this.random;
    const bytes = random.pick<() => Buffer>([
      () => Buffer.from("16030100a5010000a10303" + "00".repeat(40), "hex"),
      () => Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1"),
      () => random.bytes(random.int(1, 300)),
      () =>
        Buffer.from(
          "GET / HTTP/1.1\r\nHost: x\r\n\r\n".replace(/./g, (char) => (random.chance(0.05) ? "\u0000" : char)),
          "latin1",
        ),
    ])();
    return { kind: "junk", method: "", bytes, pieces: 1, finish: true };
  }

  /** A complete, valid request written in pieces a little apart: slow, but in time. */
  private slowClient(): FuzzRequest {
    const request = this.json("POST", "/blog/users/v1/create", this.body(TABLES[0]!, { hostile: false }), "slow");
    return { ...request, pieces: this.random.int(2, 6) };
  }

  /** A request that stops half-way and stays silent: the server's timeouts must answer it. */
  private incomplete(): FuzzRequest {
    const random = this.random;
    const body = this.body(TABLES[0]!, { hostile: false });
    const text = random.pick([
      "GET /blog/users/v1/li",
      `GET /blog/users/v1/list HTTP/1.1\r\nHost: x\r\nX-API-SIGN`,
      `POST /blog/users/v1/create HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${this.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body) + 20}\r\n\r\n${body}`,
      `POST /blog/users/v1/create HTTP/1.1\r\nHost: x\r\nX-API-SIGNATURE: ${this.key}\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n${body}`,
    ]);
    return { kind: "incomplete", method: text.split(" ")[0]!, bytes: Buffer.from(text), pieces: 1, finish: false };
  }

  // -------------------------------------------------------------------------------------------
  // Assembly

  private json(method: string, path: string, body: string | Buffer, kind: string): FuzzRequest {
    return this.raw(method, path, [["Content-Type", "application/json"]], body, kind);
  }

  private plain(method: string, path: string, kind: string): FuzzRequest {
    return this.raw(method, path, [], undefined, kind);
  }

  /**
   * A request with the usual headers (Host, the key, Content-Length for a body), less those in
   * `omit`, then `headers` as given.
   */
  private raw(
    method: string,
    path: string,
    headers: [string, string][],
    body: string | Buffer | undefined,
    kind: string,
    { omit = [], extraLine }: { omit?: string[]; extraLine?: string } = {},
  ): FuzzRequest {
    const lines = [`${method} ${path} HTTP/1.1`];
    const usual: [string, string][] = [
      ["Host", "127.0.0.1"],
      ["X-API-SIGNATURE", this.key],
    ];
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    if (payload !== undefined) usual.push(["Content-Length", String(payload.length)]);
    if (this.random.chance(0.3)) usual.push(["Connection", this.random.pick(["close", "keep-alive"])]);
    for (const [name, value] of [...usual.filter(([name]) => !omit.includes(name)), ...headers])
      lines.push(`${name}: ${value}`);
    if (extraLine !== undefined) lines.push(extraLine);
    const head = Buffer.from(lines.join(SEPARATOR) + SEPARATOR + SEPARATOR, "utf8");
    return {
      kind,
      method,
      bytes: payload === undefined ? head : Buffer.concat([head, payload]),
      pieces: 1,
      finish: this.random.chance(0.5),
    };
  }
}

/** `text` with one character replaced by a random one. */
function flip(text: string, random: Random): string {
  if (text.length === 0) return text;
  const at = random.int(0, text.length - 1);
  return text.slice(0, at) + String.fromCharCode(random.int(0, 0x2ff)) + text.slice(at + 1);
}

/** A body in chunked transfer coding, in two chunks. */
function chunked(body: string): string {
  const half = Math.floor(body.length / 2);
  const parts = [body.slice(0, half), body.slice(half)].filter((part) => part.length > 0);
  return parts.map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`).join("") + "0\r\n\r\n";
}
