import { isDeepStrictEqual } from "node:util";
import { RequestGenerator, TABLES, type FuzzRequest } from "./requests.ts";
import { exchange, type Answer } from "./wire.ts";

// Runs hostile requests against a generated blog server and checks every answer: a status below
// 500, exactly the envelope, nothing leaked; then that the records it acknowledged are intact.

export interface FuzzOptions {
  /** The server's URL, `http://127.0.0.1:<port>`. */
  url: string;
  key: string;
  seed: number;
  count: number;
  concurrency: number;
  /** How long an answer may take: past the server's request timeout, its check interval and some slack. */
  deadlineMs: number;
}

export interface FuzzReport {
  requests: number;
  /** Answers by status, and `unanswered` and `hang`. */
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  /** Every answer that broke a rule, with what was sent. */
  failures: string[];
  /** Records whose create was acknowledged and that nothing may have changed since, checked after the run. */
  checkedRecords: number;
  slowestMs: number;
}

/** Words that would give away the server's insides (unless the request itself carried them). */
const LEAKS = [
  /SELECT |INSERT |UPDATE |DELETE FROM/i,
  /SQLITE_|sqlite3?\b|better-sqlite|postgres|pg_|SQLSTATE|syntax error|violates|constraint/i,
  /\n\s+at |node:internal|node_modules|\/tmp\/|\/work\/|\/home\/|\.ts:\d|\.js:\d/,
  /Fastify|FST_ERR|"statusCode"|"error":/,
];

/** Runs the requests `count` at most `concurrency` at a time, checking each answer. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const port = Number(new URL(options.url).port);
  const known = await knownIds(options);
  const generator = new RequestGenerator(options.seed, options.key, known);
  const ledger = new Ledger();
  const report: FuzzReport = { requests: 0, byStatus: {}, byKind: {}, failures: [], checkedRecords: 0, slowestMs: 0 };
  let sent = 0;
  const worker = async () => {
    while (sent < options.count) {
      sent++;
      const request = generator.next();
      const answer = await exchange(port, request, options.deadlineMs);
      report.requests++;
      const status = answer.problem ?? String(answer.status);
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      report.byKind[request.kind] = (report.byKind[request.kind] ?? 0) + 1;
      report.slowestMs = Math.max(report.slowestMs, answer.ms);
      const problem = check(request, answer, options.key);
      if (problem)
        report.failures.push(`${problem}\n  sent: ${excerpt(request.bytes)}\n  got: ${excerpt(answer.body)}`);
      ledger.note(request, problem === undefined ? answer : undefined);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  report.checkedRecords = await ledger.verify(options, report.failures);
  return report;
}

/** What was wrong with an answer, or undefined when it keeps every rule. */
export function check(request: FuzzRequest, answer: Answer, key: string): string | undefined {
  if (answer.problem) return `${answer.problem} after ${answer.ms} ms${answer.failure ? ` (${answer.failure})` : ""}`;
  const status = answer.status!;
  if (status >= 500) return `status ${status}`;
  if (!answer.headers["content-type"]?.startsWith("application/json")) {
    return `status ${status} with Content-Type ${answer.headers["content-type"]}`;
  }
  if (request.method === "HEAD") return undefined;
  // The API's OpenAPI document is what it is, not an envelope.
  if (status === 200 && /^GET \/blog\/v\d+\/openapi\.json /.test(request.bytes.toString("latin1"))) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString("utf8"));
  } catch {
    return `status ${status}: the body is not JSON`;
  }
  const envelope = body as Record<string, unknown>;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return `status ${status}: not an object`;
  const keys = Object.keys(envelope).join(",");
  const success = status < 400;
  if (envelope.success !== success || typeof envelope.message !== "string")
    return `status ${status}: bad envelope ${keys}`;
  if (success) {
    const deleted = envelope.message === "Record deleted successfully.";
    if (keys !== (deleted ? "success,message" : "success,message,data"))
      return `status ${status}: envelope keys ${keys}`;
  } else if (keys !== "success,message,data" || !isDeepStrictEqual(envelope.data, [])) {
    return `status ${status}: failure envelope ${keys}`;
  }
  const sent = request.bytes.toString("latin1");
  const text = answer.body.toString("utf8");
  if (text.includes(key) && !sent.slice(sent.indexOf("\r\n\r\n")).includes(key))
    return `status ${status}: the key leaked`;
  const message = envelope.message as string;
  for (const leak of LEAKS) {
    const found = leak.exec(message)?.[0];
    if (found !== undefined && !sent.includes(found))
      return `status ${status}: leaked ${JSON.stringify(found)} in ${JSON.stringify(message)}`;
  }
  return undefined;
}

/** Up to 300 characters of bytes, printable. */
function excerpt(bytes: Buffer): string {
  const text = bytes.subarray(0, 300).toString("latin1");
  return JSON.stringify(text) + (bytes.length > 300 ? ` (${bytes.length} bytes)` : "");
}

/** Ids to aim at: the categories the server holds, and about how many records each table has. */
async function knownIds({ url, key }: FuzzOptions): Promise<{ maxId: number; categories: string[] }> {
  const headers = { "x-api-signature": key };
  const categories = (await (await fetch(`${url}/blog/categories/v1/list?limit=50`, { headers })).json()) as {
    data: { id: string }[];
  };
  return { maxId: 60, categories: categories.data.map((category) => category.id) };
}

/** Some records of every table to aim at: users, categories, posts by them, comments on those. */
export async function seedRecords(url: string, key: string): Promise<void> {
  const create = async (path: string, body: object) => {
    const response = await fetch(`${url}/blog/${path}/create`, {
      method: "POST",
      headers: { "x-api-signature": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`seeding ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { id: number | string } }).data.id;
  };
  const categories: (number | string)[] = [];
  for (let index = 1; index <= 5; index++)
    categories.push(await create("categories/v1", { name: `category ${index}` }));
  for (let index = 1; index <= 20; index++) {
    const user = await create("users/v1", { name: `seed ${index}`, email: `seed${index}@example.com` });
    const post = await create("posts/v1", {
      title: `post ${index}`,
      user_id: user,
      category_id: categories[index % 5],
    });
    if (index % 2 === 0) await create("comments/v2", { post_id: post, author: "seed", text: "A comment." });
  }
}

const WRITE = /^(\S+) \/blog\/([a-z_]+)\/(v\d+)\/(create|update|delete)(?:\/([^\s/?#]*))?[\s?#/]/;
const TARGETED = /\/blog\/([a-z_]+)\/v\d+\/(?:update|delete)\/([^\s/?#]+)/g;

/** The records the server acknowledged creating, and what may have changed them since. */
class Ledger {
  private readonly created = new Map<string, Record<string, unknown>>();
  /** `table/id` of every record an update or delete was sent for, acknowledged or not. */
  private readonly touched = new Set<string>();

  /** Notes what a request may have changed, and what it created when its answer was sound. */
  note(request: FuzzRequest, answer: Answer | undefined): void {
    const text = request.bytes.toString("latin1");
    for (const [, table, id] of text.matchAll(TARGETED)) this.touched.add(`${table}/${normalId(id!)}`);
    const write = WRITE.exec(text);
    if (!answer || !write || write[1] !== "POST" || write[4] !== "create" || answer.status !== 201) return;
    const record = (JSON.parse(answer.body.toString("utf8")) as { data: Record<string, unknown> }).data;
    this.created.set(`${write[2]}/${normalId(String(record.id))}`, record);
  }

  /** Reads back every created record nothing may have changed; returns how many were checked. */
  async verify({ url, key }: FuzzOptions, failures: string[]): Promise<number> {
    let checked = 0;
    for (const [where, record] of this.created) {
      if (this.touched.has(where)) continue;
      const [table, id] = where.split("/") as [string, string];
      // A post goes with its user (cascade) and loses its category (set null).
      if (
        table === "posts" &&
        (this.touched.has(`users/${record.user_id}`) || this.touched.has(`categories/${record.category_id}`))
      )
        continue;
      const version = TABLES.find((candidate) => candidate.name === table)!.versions[0];
      const response = await fetch(`${url}/blog/${table}/${version}/show/${id}`, {
        headers: { "x-api-signature": key },
      });
      const stored = ((await response.json()) as { data: unknown }).data;
      if (!isDeepStrictEqual(stored, record)) {
        failures.push(
          `acknowledged ${where} changed: created ${JSON.stringify(record)}, now ${response.status} ${JSON.stringify(stored)}`,
        );
      }
      checked++;
    }
    return checked;
  }
}

/** An id as the server reads it: a number's canonical form (`1e0` is 1), a uuid in lower case. */
function normalId(raw: string): string {
  let text = raw;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // Not percent-encoding: as it is.
  }
  const number = Number(text);
  return text.trim() !== "" && Number.isFinite(number) ? String(number) : text.toLowerCase();
}
