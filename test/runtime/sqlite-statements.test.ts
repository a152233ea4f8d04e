import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDatabase, sharedExample } from "../helpers/shared-examples.ts";

// The generated SQLite store prepares every statement once, when it is opened (a list's statements
// the first time their shape is used), and reuses those statement objects for every call. The generated modules are imported in process and run against
// a real, migrated database; prepare() and the statements' execution methods are observed on the
// connection object itself.

type Statement = Database.Statement;
type Operation = (...args: any[]) => any;
type Table = Record<"page" | "find" | "create" | "update" | "remove", Operation>;

/** The whole table, a batch at a time: what a list without parameters runs. */
const ALL = { filters: [], sort: [], limit: 1000, count: false };
interface Store {
  tables: Record<"users" | "posts" | "categories" | "comments", Table>;
  queries: Record<"category_posts" | "recent_posts", Operation>;
}

const EXECUTE = ["get", "all", "run", "iterate"] as const;

let db: Database.Database;
let store: Store;
/** Every statement made by db.prepare() since the store was about to open, in order. */
const prepared: Statement[] = [];
/** Every execution (get, all, run, iterate) of a statement, in order. */
let executed: Statement[] = [];

/** Makes db.prepare() record the statements it returns, and each statement record its executions. */
function observe(connection: Database.Database) {
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of EXECUTE) {
      const original = statement[method] as Operation;
      (statement as unknown as Record<string, Operation>)[method] = function (this: Statement, ...args: unknown[]) {
        executed.push(statement);
        return original.apply(this, args);
      };
    }
    prepared.push(statement);
    return statement;
  }) as typeof connection.prepare;
}

/** The statements one call executes. */
function statementsOf(call: () => unknown): Statement[] {
  executed = [];
  try {
    call();
  } catch {
    // A refused write still runs its statements (the write, then the constraint lookups).
  }
  return executed;
}

/** One use of every operation of every table and query, including the constraint-failure paths. */
function workload(round: number) {
  const { users, posts, categories, comments } = store.tables;
  const user = users.create({ name: "Ada", email: `ada-${round}@example.com` });
  users.find(String(user.id));
  users.page(ALL);
  users.update(String(user.id), { bio: "Mathematician", active: false });
  expect(() => users.create({ name: "Twin", email: `ada-${round}@example.com` })).toThrow(
    "Invalid request: email already exists",
  );

  const category = categories.create({ name: `category ${round}` });
  categories.find(category.id);
  categories.page(ALL);
  categories.update(category.id, { name: `renamed ${round}` });

  const post = posts.create({
    title: "Hello",
    user_id: user.id,
    category_id: category.id,
    published: true,
    published_at: "2024-03-10T12:30:45Z",
    rating: 4.5,
  });
  posts.find(String(post.id));
  posts.page(ALL);
  posts.update(String(post.id), { title: "Hello again" });
  expect(() => posts.create({ title: "Orphan", user_id: 2_000_000_000 })).toThrow(
    "Invalid request: user_id refers to no users record",
  );

  const comment = comments.create({ post_id: post.id, author: "Grace", text: "Nice" });
  comments.find(String(comment.id));
  comments.page(ALL);
  comments.update(String(comment.id), { text: "Very nice" });
  expect(() => posts.remove(String(post.id))).toThrow("Record is referenced by comments");

  expect(store.queries.category_posts({ category_id: category.id })).toHaveLength(1);
  expect(store.queries.recent_posts({ since: "2024-01-01T00:00:00Z", published: "true" }).length).toBeGreaterThan(0);

  expect(comments.remove(String(comment.id))).toBe(true);
  expect(posts.remove(String(post.id))).toBe(true);
  expect(categories.remove(category.id)).toBe(true);
  expect(users.remove(String(user.id))).toBe(true);
  expect(users.find(String(user.id))).toBeUndefined();
}

beforeAll(async () => {
  const { dir } = await sharedExample("blog");
  const { url } = await exampleDatabase("blog");
  const { loadConfig } = await import(join(dir, "src/config.ts"));
  const { openDatabase } = await import(join(dir, "src/db.ts"));
  const { openStore } = await import(join(dir, "src/store.ts"));
  db = openDatabase(loadConfig({ DATABASE_URL: url, API_SIGNATURE_KEY: "key" }));
  observe(db);
  store = openStore(db);
});

afterAll(() => {
  db?.close();
});

describe("prepared statements on SQLite", () => {
  it("prepares every statement when the store is opened", () => {
    const tables = Object.keys(store.tables);
    expect(tables).toEqual(["users", "posts", "categories", "comments"]);
    expect(Object.keys(store.queries)).toEqual(["category_posts", "recent_posts"]);
    // At least find, insert, update and remove per table, and one per custom query.
    expect(prepared.length).toBeGreaterThanOrEqual(tables.length * 4 + 2);
    expect(new Set(prepared).size).toBe(prepared.length);
  });

  it("prepares a list's statement once, the first time, and nothing more however many times every operation runs", () => {
    const atOpen = prepared.length;
    workload(0);
    // The one list statement of each table (the whole table, a batch at a time), prepared on first use.
    expect(prepared.length).toBe(atOpen + Object.keys(store.tables).length);
    const warm = prepared.length;
    executed = [];
    for (let round = 1; round < 25; round++) workload(round);
    expect(prepared.length).toBe(warm);
    // Every execution used a statement prepared before.
    const used = new Set(executed);
    expect(executed.length).toBeGreaterThan(24 * 20);
    for (const statement of used) expect(prepared).toContain(statement);
  });

  it("runs the same statement object for the same operation every time", () => {
    const { users, posts } = store.tables;
    const user = users.create({ name: "Lin", email: "lin@example.com" });
    const id = String(user.id);
    const calls: Record<string, () => unknown> = {
      list: () => users.page(ALL),
      find: () => users.find(id),
      update: () => users.update(id, { phone: "+44 20 7946 0958" }),
      duplicate: () => users.create({ name: "Lin", email: "lin@example.com" }),
      missingReference: () => posts.create({ title: "x", user_id: 2_000_000_000 }),
      category_posts: () => store.queries.category_posts({ category_id: "00000000-0000-4000-8000-000000000000" }),
      recent_posts: () => store.queries.recent_posts({ since: "2024-01-01T00:00:00Z", published: "false" }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const first = statementsOf(call);
      expect(first.length, name).toBeGreaterThan(0);
      for (let i = 0; i < 10; i++) {
        const again = statementsOf(call);
        expect(again.length, name).toBe(first.length);
        again.forEach((statement, index) => expect(statement, name).toBe(first[index]));
      }
    }
    // Two different operations never share a statement: list and find are distinct objects.
    expect(statementsOf(calls.list!)[0]).not.toBe(statementsOf(calls.find!)[0]);
  });
});
