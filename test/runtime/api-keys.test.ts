import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  formatKeyEntry,
  hashSecret,
  keyEntries,
  parseExpiry,
  parseKeyEntry,
  parseLimit,
  parseScope,
  scopeAllows,
  scopedKeyLookup,
  scopeProblems,
  type ApiShape,
  type KeyEntry,
} from "../../src/runtime/api-keys.ts";
import { REPO } from "../helpers/generate.ts";

// The grammar of the API_KEY_<NAME> variables (issue 29), which the generated server reads at start
// and `tablegen keys` writes: src/runtime/api-keys.ts, shipped into every server as src/api-keys.ts.

const HASH = "a".repeat(64);
const api: ApiShape = {
  project: "blog",
  versions: ["v1", "v2"],
  tables: { users: ["v1", "v2"], posts: ["v1", "v2"], categories: ["v1"], comments: ["v2"] },
  queries: { category_posts: ["v1", "v2"], recent_posts: ["v2"] },
};

const problem = (variable: string, value: string) => {
  try {
    parseKeyEntry(variable, value);
  } catch (error) {
    return `${(error as { variable: string }).variable}: ${(error as Error).message}`;
  }
  throw new Error(`${variable}=${value} was accepted`);
};

describe("a key's variable", () => {
  it("holds the hash, the scope, and optionally the expiry and the limit, in any order after the hash", () => {
    const key = parseKeyEntry(
      "API_KEY_MOBILE_APP",
      ` sha256:${HASH.toUpperCase()} ; limit = 100/minute; scope=posts:read, comments@v2:write ;expires=2027-01-01`,
    );
    expect(key).toEqual({
      name: "mobile_app",
      variable: "API_KEY_MOBILE_APP",
      hash: HASH,
      scope: [
        { target: "posts", grant: "read" },
        { target: "comments", version: "v2", grant: "write" },
      ],
      expires: Date.parse("2027-01-01T00:00:00Z"),
      limit: { count: 100, seconds: 60, text: "100/min" },
    });
    expect(formatKeyEntry(key)).toBe(
      `sha256:${HASH};scope=posts:read,comments@v2:write;expires=2027-01-01T00:00:00Z;limit=100/min`,
    );
    expect(parseKeyEntry("API_KEY_MOBILE_APP", formatKeyEntry(key))).toEqual(key);
  });

  it("takes a value still in quotes (a dotenv reader that keeps them, docker's --env-file)", () => {
    expect(parseKeyEntry("API_KEY_WEB", `"sha256:${HASH};scope=*:read"`).scope).toEqual([
      { target: "*", grant: "read" },
    ]);
    expect(parseKeyEntry("API_KEY_WEB", `'sha256:${HASH};scope=*:read'`).hash).toBe(HASH);
  });

  it.each([
    [
      "API_KEY_",
      `sha256:${HASH};scope=*:read`,
      "API_KEY_: is not a key's name: API_KEY_ is followed by capital letters, digits and _, starting with a letter",
    ],
    [
      "API_KEY_Web",
      `sha256:${HASH};scope=*:read`,
      "API_KEY_Web: is not a key's name: API_KEY_ is followed by capital letters, digits and _, starting with a letter",
    ],
    [
      "API_KEY_1WEB",
      `sha256:${HASH};scope=*:read`,
      "API_KEY_1WEB: is not a key's name: API_KEY_ is followed by capital letters, digits and _, starting with a letter",
    ],
    [
      "API_KEY_WEB",
      "",
      `API_KEY_WEB: must start with sha256:<64 hex digits>, the SHA-256 of the key's secret ("tablegen keys new" writes it)`,
    ],
    [
      "API_KEY_WEB",
      "my-secret;scope=*:read",
      `API_KEY_WEB: must start with sha256:<64 hex digits>, the SHA-256 of the key's secret ("tablegen keys new" writes it)`,
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH.slice(1)};scope=*:read`,
      `API_KEY_WEB: must start with sha256:<64 hex digits>, the SHA-256 of the key's secret ("tablegen keys new" writes it)`,
    ],
    ["API_KEY_WEB", `sha256:${HASH}`, "API_KEY_WEB: has no scope=: say what the key may do, e.g. scope=posts:read"],
    ["API_KEY_WEB", `sha256:${HASH};scope=*:read;scope=posts:read`, "API_KEY_WEB: sets scope twice"],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;colour=red`,
      'API_KEY_WEB: unknown setting "colour" (expected scope=, expires= or limit=, separated by ;)',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=`,
      "API_KEY_WEB: scope is empty: give at least one <table or query>:<action>, e.g. posts:read",
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=posts`,
      'API_KEY_WEB: scope entry "posts" names no action: write <table or query>:<action>, e.g. posts:read',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=posts:read,,users:read`,
      "API_KEY_WEB: scope has an empty entry (two commas in a row, or one at an end)",
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=Posts:read`,
      'API_KEY_WEB: scope entry "Posts:read": "Posts" is not a table or query name, or *',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=posts:remove`,
      'API_KEY_WEB: scope entry "posts:remove": unknown action "remove" (expected list, show, create, update, delete, read or write)',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=posts@1:read`,
      'API_KEY_WEB: scope entry "posts@1:read": "1" is not a version label (v1, v2…)',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=posts@v1@v2:read`,
      'API_KEY_WEB: scope entry "posts@v1@v2:read": "v1@v2" is not a version label (v1, v2…)',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;expires=next week`,
      'API_KEY_WEB: expires "next week" is not a date-time with a time zone, such as 2027-01-01T00:00:00Z',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;expires=2027-01-01T00:00:00`,
      'API_KEY_WEB: expires "2027-01-01T00:00:00" is not a date-time with a time zone, such as 2027-01-01T00:00:00Z',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;expires=2027-02-30`,
      'API_KEY_WEB: expires "2027-02-30" is not a date-time with a time zone, such as 2027-01-01T00:00:00Z',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;limit=100`,
      'API_KEY_WEB: limit "100" is not a number of requests per second, minute, hour or day, such as 100/min (1 to 1000000000)',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;limit=0/min`,
      'API_KEY_WEB: limit "0/min" is not a number of requests per second, minute, hour or day, such as 100/min (1 to 1000000000)',
    ],
    [
      "API_KEY_WEB",
      `sha256:${HASH};scope=*:read;limit=5/week`,
      'API_KEY_WEB: limit "5/week" is not a number of requests per second, minute, hour or day, such as 100/min (1 to 1000000000)',
    ],
  ])("refuses %s=%s with one message naming the variable", (variable, value, message) => {
    expect(problem(variable, value)).toBe(message);
  });

  it("reads every API_KEY_ variable of an environment, and refuses two keys with one secret", () => {
    const env = {
      API_SIGNATURE_KEY: "main",
      API_KEY_WEB: `sha256:${HASH};scope=*:read`,
      API_KEY_APP: `sha256:${"b".repeat(64)};scope=posts:write;limit=10/s`,
      OTHER: "x",
    };
    expect(keyEntries(env).map((key) => [key.name, key.limit?.text])).toEqual([
      ["app", "10/sec"],
      ["web", undefined],
    ]);
    expect(() => keyEntries({ ...env, API_KEY_TWIN: `sha256:${HASH};scope=posts:read` })).toThrow(
      "holds the same secret's hash as API_KEY_TWIN",
    );
  });

  it("reads limits per second, minute, hour and day, and expiries with any zone", () => {
    expect(
      ["1/s", "2/sec", "3/second", "4/m", "5/h", "6/hour", "7/d", "8 / day"].map((text) => parseLimit(text).text),
    ).toEqual(["1/sec", "2/sec", "3/sec", "4/min", "5/hour", "6/hour", "7/day", "8/day"]);
    expect(parseLimit("1/day").seconds).toBe(86400);
    expect(parseExpiry("2027-01-01T02:00:00+02:00")).toBe(Date.parse("2027-01-01T00:00:00Z"));
  });
});

describe("a scope", () => {
  const allows = (scope: string, route: Parameters<typeof scopeAllows>[1]) => scopeAllows(parseScope(scope), route);
  const table = (name: string, action: "list" | "show" | "create" | "update" | "delete", version = "v1") =>
    ({ kind: "table", name, action, version }) as const;
  const query = (name: string, version = "v1") => ({ kind: "query", name, version }) as const;

  it("grants read as list, show and queries, write as everything, an action as itself", () => {
    expect(
      ["list", "show", "create", "update", "delete"].map((action) =>
        allows("posts:read", table("posts", action as "list")),
      ),
    ).toEqual([true, true, false, false, false]);
    expect(
      ["list", "show", "create", "update", "delete"].map((action) =>
        allows("posts:write", table("posts", action as "list")),
      ),
    ).toEqual([true, true, true, true, true]);
    expect(allows("posts:delete", table("posts", "delete"))).toBe(true);
    expect(allows("posts:delete", table("posts", "update"))).toBe(false);
    expect(allows("category_posts:read", query("category_posts"))).toBe(true);
    expect(allows("*:read", query("category_posts"))).toBe(true);
    expect(allows("*:list", query("category_posts"))).toBe(false);
  });

  it("reaches only the tables and queries it names, or all with *", () => {
    expect(allows("posts:write", table("users", "list"))).toBe(false);
    expect(allows("posts:read", query("category_posts"))).toBe(false);
    expect(allows("*:create", table("users", "create"))).toBe(true);
    expect(allows("posts:read,users:create", table("users", "create"))).toBe(true);
  });

  it("pins an entry to a version", () => {
    expect(allows("posts@v2:read", table("posts", "list", "v2"))).toBe(true);
    expect(allows("posts@v2:read", table("posts", "list", "v1"))).toBe(false);
    expect(allows("*@v1:write", query("category_posts", "v1"))).toBe(true);
    expect(allows("*@v1:write", query("category_posts", "v2"))).toBe(false);
  });

  it("names what the API does not have", () => {
    expect(scopeProblems(parseScope("posts:read,*:write,category_posts:read,users@v2:list,*@v1:read"), api)).toEqual(
      [],
    );
    expect(
      scopeProblems(
        parseScope("post:read,category_posts:delete,posts@v3:read,comments@v1:read,recent_posts@v1:read"),
        api,
      ),
    ).toEqual([
      'scope entry "post:read": post is no table or query of blog',
      'scope entry "category_posts:delete": category_posts is a custom query, which takes read or write, not delete',
      'scope entry "posts@v3:read": v3 is no version of blog (v1, v2)',
      'scope entry "comments@v1:read": comments is not served in v1 (only in v2)',
      'scope entry "recent_posts@v1:read": recent_posts is not served in v1 (only in v2)',
    ]);
    // Names an object has of its own (its prototype's) are no tables.
    expect(scopeProblems(parseScope("constructor:read,hasownproperty:read"), api)).toEqual([
      'scope entry "constructor:read": constructor is no table or query of blog',
      'scope entry "hasownproperty:read": hasownproperty is no table or query of blog',
    ]);
  });
});

describe("looking a presented key up (constant time with respect to the secrets)", () => {
  const secret = "s3cret-of-the-web-key";
  const key: KeyEntry = {
    name: "web",
    variable: "API_KEY_WEB",
    hash: createHash("sha256").update(secret).digest("hex"),
    scope: parseScope("*:read"),
  };

  it("hashes the presented value first: the secret finds its key, its hash (what the variable holds) does not", () => {
    const find = scopedKeyLookup([key])!;
    expect(hashSecret(secret)).toBe(key.hash);
    expect(find(secret)).toBe(key);
    expect(find(key.hash)).toBeUndefined();
    expect(find(`sha256:${key.hash}`)).toBeUndefined();
    expect(find(`${secret}x`)).toBeUndefined();
    expect(find(secret.slice(0, -1))).toBeUndefined();
    expect(find("")).toBeUndefined();
  });

  it("holds nothing but hashes: no secret is ever compared byte by byte", () => {
    expect(JSON.stringify(key)).not.toContain(secret);
    // The server's check compares API_SIGNATURE_KEY with timingSafeEqual and finds the others by hash only.
    const auth = readFileSync(join(REPO, "templates/server/src/http/auth.ts"), "utf8");
    expect(auth).toContain("timingSafeEqual(presented, key)");
    expect(auth).toContain("!timingSafeEqual(key, key)");
    expect(auth).toContain("const findScoped = scopedKeyLookup(scopedKeys);");
    // A connection's remembered key is compared with the value presented as API_SIGNATURE_KEY is.
    expect(auth).toContain("timingSafeEqual(last.presented, presented)");
    expect(auth).not.toMatch(/(?<!typeof )header\s*[!=]==|[!=]==\s*header/);
  });

  it("refuses an expired key, and hashes nothing when there are no keys", () => {
    const expiring = { ...key, expires: Date.parse("2030-01-01T00:00:00Z") };
    expect(scopedKeyLookup([expiring], () => Date.parse("2029-12-31T23:59:59Z"))!(secret)).toBe(expiring);
    expect(scopedKeyLookup([expiring], () => Date.parse("2030-01-01T00:00:00Z"))!(secret)).toBeUndefined();
    expect(scopedKeyLookup([])).toBeUndefined();
  });
});
