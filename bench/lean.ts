// The lean ceiling (issue 18): the benchmarked endpoints of examples/blog.yaml (show, list, query and
// create of users, and the category_posts query) as the fastest honest Fastify + better-sqlite3
// server a careful person would write for the same contract, NOT a copy of the generated server.
// Same paths, answers, envelope and validation (JSON schemas compiled by Ajv, the contract's email,
// phone and date-time formats, 401/404/409/400 answers), a constant-time key check and error
// logging; and nothing the contract does not need on these paths:
//   - Fastify's logger off (`logger: false`), so no child logger per request and no request
//     logging; errors (500s) are logged as one JSON line each on stderr (pino's shape);
//   - the key check is a synchronous onRequest hook (a callback, no promise), comparing the
//     presented key with each key by crypto.timingSafeEqual on buffers of the key's length (no
//     hash per request: the time taken depends on the keys' lengths only, never on their bytes);
//   - synchronous handlers (Fastify sends a returned value in the same tick);
//   - statements prepared once, positional parameters; rows turned into records in place.
// Its list reads `limit` and `after` (a page in id order, with the next page's Link), the parameters
// bench/growth.ts asks for, and no filter or sort.
// bench/ceiling.ts, the older ceiling, keeps the generated server's costs (a pino logger with a
// child per request, hashing the key) and is reported beside this one.
//
// Environment: PORT, HOST, DATABASE_URL (file:...), API_SIGNATURE_KEY (comma-separated), LOG_LEVEL.
// Prints "Listening on <url>" once it listens, like the generated server.
import { Readable } from "node:stream";
import Database from "better-sqlite3";
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from "fastify";
import {
  envelope,
  errorLog,
  Failure,
  formats,
  signatureKeys,
  signedWith,
  UNAUTHORIZED,
  userInput,
  userRecord,
  type UserInput,
} from "./lean-contract.ts";

const env = process.env;
const signed = signedWith(signatureKeys(env));
const url = env.DATABASE_URL ?? "file:./data.db";
if (!url.startsWith("file:")) throw new Error("DATABASE_URL must be a file: URL");
const logError = errorLog(env);

// ---- database ----------------------------------------------------------------------------------

const db = new Database(url.slice("file:".length), { fileMustExist: true });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("foreign_keys = ON");
db.pragma("busy_timeout = 5000");

interface UserRow {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  bio: string | null;
  active: number | boolean | null;
  created_at: string | null;
}

/** The whole table is answered at once up to this many rows, else streamed (as the contract does). */
const BATCH = 1000;
const COLUMNS = `"id", "name", "email", "phone", "bio", "active", "created_at"`;
const firstUsers = db.prepare<[number], UserRow>(`SELECT ${COLUMNS} FROM "users" ORDER BY "id" LIMIT ?`);
const usersAfter = db.prepare<[number, number], UserRow>(
  `SELECT ${COLUMNS} FROM "users" WHERE "id" > ? ORDER BY "id" LIMIT ?`,
);
const findUser = db.prepare<[number], UserRow>(`SELECT ${COLUMNS} FROM "users" WHERE "id" = ?`);
const insertUser = db.prepare<[string, string, string | null, string | null, number | null, string | null], UserRow>(
  `INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at") VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
);
const categoryPosts = db.prepare<[string]>(
  `SELECT c.id AS category_id, c.name AS category_name, p.id AS post_id, p.title AS description
   FROM categories c JOIN posts p ON p.category_id = c.id
   WHERE c.id = ?
   ORDER BY p.id`,
);

// Stored values are Prisma's: booleans 0/1, date-times "YYYY-MM-DDTHH:MM:SS.000+00:00".
function apiDateTime(stored: string | null): string | null {
  if (stored === null) return null;
  if (stored.length === 29 && stored.endsWith("+00:00")) return stored.slice(0, 19) + "Z";
  const iso = /[Tt]/.test(stored) ? stored : stored.replace(" ", "T") + "Z";
  return new Date(iso).toISOString().slice(0, 19) + "Z";
}

const storedDateTime = (value: string) =>
  new Date(value.replace(" ", "T").toUpperCase()).toISOString().slice(0, 19) + ".000+00:00";

function toRecord(row: UserRow): UserRow {
  row.active = row.active === null ? null : row.active === 1;
  row.created_at = apiDateTime(row.created_at);
  return row;
}

// ---- schemas -----------------------------------------------------------------------------------

// ---- HTTP --------------------------------------------------------------------------------------

const app = Fastify({
  logger: false,
  routerOptions: { ignoreTrailingSlash: true },
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, formats } },
});
app.removeContentTypeParser("text/plain");

app.addHook("onRequest", (request, reply, done) => {
  if (signed(request.headers["x-api-signature"])) return done();
  reply.code(401).type("application/json; charset=utf-8").send(UNAUTHORIZED);
});

app.setErrorHandler((error: FastifyError, request, reply) => {
  let status: number;
  let message: string;
  if (error instanceof Failure) [status, message] = [error.statusCode, error.message];
  else if (error.validation) [status, message] = [400, `Invalid request: ${error.message}`];
  else if (error instanceof Database.SqliteError && error.code === "SQLITE_CONSTRAINT_UNIQUE")
    [status, message] = [
      409,
      `Invalid request: ${error.message.slice(error.message.lastIndexOf(".") + 1)} already exists`,
    ];
  else if (error.statusCode && error.statusCode < 500) [status, message] = [error.statusCode, error.message];
  else {
    logError(error, request);
    [status, message] = [500, "Internal server error"];
  }
  reply.code(status).send({ success: false, message, data: [] });
});
app.setNotFoundHandler((_request, reply) => {
  reply.code(404).send({ success: false, message: "Data not found", data: [] });
});

const ID = /^[1-9]\d{0,9}$/;
const NOT_FOUND = new Failure(404, "Data not found");

app.get<{ Querystring: Record<string, string | string[]> }>(
  "/blog/users/v1/list",
  { schema: { response: { 200: envelope({ type: "array", items: userRecord }) } } },
  (request, reply) => {
    const paging = pageOf(request.query);
    if (paging.limit !== undefined) {
      // A page (bench/growth.ts asks for ?limit=100): one statement, a Link to the next page if any.
      const rows = usersFrom(paging.after, paging.limit + 1);
      if (rows.length > paging.limit) {
        rows.pop();
        const [path, search = ""] = request.url.split("?", 2) as [string, string?];
        const params = new URLSearchParams(search);
        params.set("after", String(rows.at(-1)!.id));
        reply.header("link", `<${path}?${params.toString()}>; rel="next"`);
      }
      for (const row of rows) toRecord(row);
      return { success: true, message: "Data found.", data: rows };
    }
    const rows = usersFrom(paging.after, BATCH + 1);
    if (rows.length <= BATCH) {
      for (const row of rows) toRecord(row);
      return { success: true, message: "Data found.", data: rows };
    }
    // A table larger than a batch: streamed a batch at a time, never held whole.
    reply.type("application/json; charset=utf-8");
    return reply.send(Readable.from(streamed(rows.slice(0, BATCH)), { objectMode: false }));
  },
);

/** The users after an id, in id order (all of them from the first when after is 0). */
const usersFrom = (after: number, limit: number) =>
  after === 0 ? firstUsers.all(limit) : usersAfter.all(after, limit);

/**
 * The list parameters a client pages through a table with, in id order: `limit` (1 to 1,000) and
 * `after` (an id). The lean ceiling reads no other list parameter (no filters or sorts: the
 * benchmark asks for none); anything else is a 400.
 */
function pageOf(query: Record<string, string | string[]>): { limit?: number; after: number } {
  const problems: string[] = [];
  let limit: number | undefined;
  let after = 0;
  for (const [name, value] of Object.entries(query)) {
    const text = typeof value === "string" ? value : undefined;
    if (name === "limit") {
      if (text !== undefined && /^[1-9]\d{0,3}$/.test(text) && Number(text) <= 1000) limit = Number(text);
      else problems.push("limit must be an integer from 1 to 1000");
    } else if (name === "after") {
      if (text !== undefined && ID.test(text)) after = Number(text);
      else problems.push("after must be an integer");
    } else problems.push(`unknown parameter ${name}`);
  }
  if (problems.length > 0) throw new Failure(400, `Invalid request: ${problems.join("; ")}`);
  return limit === undefined ? { after } : { limit, after };
}

async function* streamed(first: UserRow[]): AsyncGenerator<string> {
  yield '{"success":true,"message":"Data found.","data":[';
  let batch = first;
  let separator = "";
  while (batch.length > 0) {
    yield separator + batch.map((row) => JSON.stringify(toRecord(row))).join(",");
    separator = ",";
    batch = usersAfter.all(batch.at(-1)!.id, BATCH);
  }
  yield "]}";
}

app.get<{ Params: { id: string } }>(
  "/blog/users/v1/show/:id",
  { schema: { response: { 200: envelope(userRecord) } } },
  (request) => {
    const raw = request.params.id;
    const id = ID.test(raw) ? Number(raw) : 0;
    const row = id > 0 && id <= 2_147_483_647 ? findUser.get(id) : undefined;
    if (row === undefined) throw NOT_FOUND;
    return { success: true, message: "Data found.", data: toRecord(row) };
  },
);

app.post<{ Body: UserInput }>(
  "/blog/users/v1/create",
  { schema: { body: userInput, response: { 201: envelope(userRecord) } } },
  (request: FastifyRequest<{ Body: UserInput }>, reply: FastifyReply) => {
    const input = request.body;
    const row = insertUser.get(
      input.name,
      input.email,
      input.phone ?? null,
      input.bio ?? null,
      input.active === undefined ? 1 : input.active === null ? null : Number(input.active),
      input.created_at === undefined
        ? new Date().toISOString().slice(0, 19) + ".000+00:00"
        : input.created_at === null
          ? null
          : storedDateTime(input.created_at),
    )!;
    reply.code(201);
    return { success: true, message: "Record created successfully.", data: toRecord(row) };
  },
);

app.get<{ Querystring: { category_id: string } }>(
  "/blog/v1/category_posts",
  {
    schema: {
      querystring: {
        type: "object",
        properties: { category_id: { type: "string" } },
        required: ["category_id"],
        additionalProperties: false,
      },
    },
  },
  (request) => ({ success: true, message: "Data found.", data: categoryPosts.all(request.query.category_id) }),
);

const shutdown = async () => {
  await app.close();
  db.close();
};
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);

const address = await app.listen({ host: env.HOST || "127.0.0.1", port: Number(env.PORT || 3000) });
console.log(`Listening on ${address}`);
