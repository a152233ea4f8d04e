// The lean PostgreSQL ceiling (issue 18): the benchmarked endpoints of examples/blog.yaml on
// PostgreSQL (show, list, query and create of users, and the category_posts query) as the fastest
// honest Fastify + pg server a careful person would write for the same contract, NOT a copy of the
// generated server. bench/lean.ts is its SQLite twin: the same paths, answers, envelope and
// validation (JSON schemas compiled by Ajv, the contract's email, phone and date-time formats,
// 401/404/409/400 answers), a constant-time key check and error logging; and nothing the contract
// does not need on these paths:
//   - Fastify's logger off (`logger: false`): no child logger per request, no request logging;
//     errors (500s) are logged as one JSON line each on stderr (pino's shape);
//   - the key check is a synchronous onRequest hook (a callback, no promise), comparing the
//     presented key with each key by crypto.timingSafeEqual on buffers of the key's length;
//   - one pg.Pool of DATABASE_POOL_SIZE connections (10, as the generated server), `pool.query` with
//     named prepared statements (each connection prepares a statement once, then only binds and
//     executes it) and positional parameters;
//   - rows arrive ready for JSON: the pool's type parsers give timestamptz as the API's
//     `YYYY-MM-DDTHH:MM:SSZ` (the session runs in UTC) and 64-bit integers as numbers; booleans and
//     int4 ids are pg's own. The whole table is answered at once up to 1,000 rows, streamed beyond.
// Self-contained (it is transpiled alone, without bundling), so the schemas and the key check are
// repeated from bench/lean.ts rather than imported.
//
// WORKERS=n runs n processes under node:cluster sharing the port (the primary only forks them and
// passes SIGTERM on), as the generated server's `npm run cluster` does.
//
// Environment: PORT, HOST, DATABASE_URL (postgresql://...), DATABASE_POOL_SIZE, API_SIGNATURE_KEY
// (comma-separated), LOG_LEVEL, WORKERS. Prints "Listening on <url>" once it listens (each worker).
import cluster from "node:cluster";
import { Readable } from "node:stream";
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from "fastify";
import pg from "pg";
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
const workers = Number(env.WORKERS) || 0;

if (workers > 0 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    });
  }
} else {
  await serve();
}

async function serve() {
  const signed = signedWith(signatureKeys(env));
  const url = env.DATABASE_URL ?? "";
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error("DATABASE_URL must be a postgresql:// URL");
  const logError = errorLog(env);

  // ---- database --------------------------------------------------------------------------------

  const TIMESTAMPTZ = 1184;
  const INT8 = 20;
  /** `2024-03-10 12:30:45+00` (the session runs in UTC; timestamptz(0) has no fraction) → `2024-03-10T12:30:45Z`. */
  const apiDateTime = (text: string) => `${text.slice(0, 10)}T${text.slice(11, 19)}Z`;
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === TIMESTAMPTZ
        ? apiDateTime
        : oid === INT8
          ? Number
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(env.DATABASE_POOL_SIZE) || 10,
    connectionTimeoutMillis: 5000,
    types,
    options: "-c TimeZone=UTC",
  });
  // A connection PostgreSQL ends is reported here; the pool replaces it.
  pool.on("error", () => undefined);

  interface UserRow {
    id: number;
    name: string;
    email: string;
    phone: string | null;
    bio: string | null;
    active: boolean | null;
    created_at: string | null;
  }

  /** The whole table is answered at once up to this many rows, else streamed (as the contract does). */
  const BATCH = 1000;
  const COLUMNS = `"id", "name", "email", "phone", "bio", "active", "created_at"`;
  const statement = (name: string, text: string) => (values: unknown[]) => ({ name, text, values });
  const firstUsers = statement("first_users", `SELECT ${COLUMNS} FROM "users" ORDER BY "id" LIMIT $1`);
  const usersAfter = statement("users_after", `SELECT ${COLUMNS} FROM "users" WHERE "id" > $1 ORDER BY "id" LIMIT $2`);
  const findUser = statement("find_user", `SELECT ${COLUMNS} FROM "users" WHERE "id" = $1`);
  const insertUser = statement(
    "insert_user",
    `INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at") VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
  );
  const categoryPosts = statement(
    "category_posts",
    `SELECT c.id AS category_id, c.name AS category_name, p.id AS post_id, p.title AS description
     FROM categories c JOIN posts p ON p.category_id = c.id
     WHERE c.id = $1
     ORDER BY p.id`,
  );

  /** An RFC 3339 date-time (validated) to whole seconds, as timestamptz(0) keeps it (PostgreSQL would round). */
  const storedDateTime = (value: string) =>
    new Date(value.replace(" ", "T").replace(/\.\d+/, "").toUpperCase()).toISOString().slice(0, 19) + "Z";

  // ---- schemas ---------------------------------------------------------------------------------

  const categoryPost = {
    type: "object",
    properties: {
      category_id: { type: "string" },
      category_name: { type: "string" },
      post_id: { type: "integer" },
      description: { type: "string" },
    },
    required: ["category_id", "category_name", "post_id", "description"],
  } as const;

  // ---- HTTP ------------------------------------------------------------------------------------

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

  const UNIQUE_VIOLATION = "23505";
  /** PostgreSQL's class 22: a value it cannot take (text with NUL, a parameter that is no uuid). */
  const DATA_EXCEPTION = /^22/;

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let status: number;
    let message: string;
    const code = error instanceof pg.DatabaseError ? error.code : undefined;
    if (error instanceof Failure) [status, message] = [error.statusCode, error.message];
    else if (error.validation) [status, message] = [400, `Invalid request: ${error.message}`];
    else if (code === UNIQUE_VIOLATION) {
      const column = /^Key \("?([^")]+)"?\)=/.exec((error as pg.DatabaseError).detail ?? "")?.[1];
      [status, message] = [409, `Invalid request: ${column} already exists`];
    } else if (code !== undefined && DATA_EXCEPTION.test(code))
      [status, message] = [400, "Invalid request: a value is not valid"];
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

  app.get(
    "/blog/users/v1/list",
    { schema: { response: { 200: envelope({ type: "array", items: userRecord }) } } },
    async (_request, reply) => {
      const { rows } = await pool.query<UserRow>(firstUsers([BATCH + 1]));
      if (rows.length <= BATCH) return { success: true, message: "Data found.", data: rows };
      // A table larger than a batch: streamed a batch at a time, never held whole.
      reply.type("application/json; charset=utf-8");
      return reply.send(Readable.from(streamed(rows.slice(0, BATCH)), { objectMode: false }));
    },
  );

  async function* streamed(first: UserRow[]): AsyncGenerator<string> {
    yield '{"success":true,"message":"Data found.","data":[';
    let batch = first;
    let separator = "";
    while (batch.length > 0) {
      yield separator + batch.map((row) => JSON.stringify(row)).join(",");
      separator = ",";
      batch = (await pool.query<UserRow>(usersAfter([batch.at(-1)!.id, BATCH]))).rows;
    }
    yield "]}";
  }

  app.get<{ Params: { id: string } }>(
    "/blog/users/v1/show/:id",
    { schema: { response: { 200: envelope(userRecord) } } },
    async (request) => {
      const raw = request.params.id;
      const id = ID.test(raw) ? Number(raw) : 0;
      if (id <= 0 || id > 2_147_483_647) throw NOT_FOUND;
      const row = (await pool.query<UserRow>(findUser([id]))).rows[0];
      if (row === undefined) throw NOT_FOUND;
      return { success: true, message: "Data found.", data: row };
    },
  );

  app.post<{ Body: UserInput }>(
    "/blog/users/v1/create",
    { schema: { body: userInput, response: { 201: envelope(userRecord) } } },
    async (request: FastifyRequest<{ Body: UserInput }>, reply: FastifyReply) => {
      const input = request.body;
      const { rows } = await pool.query<UserRow>(
        insertUser([
          input.name,
          input.email,
          input.phone ?? null,
          input.bio ?? null,
          input.active === undefined ? true : input.active,
          input.created_at === undefined
            ? new Date().toISOString().slice(0, 19) + "Z"
            : input.created_at === null
              ? null
              : storedDateTime(input.created_at),
        ]),
      );
      reply.code(201);
      return { success: true, message: "Record created successfully.", data: rows[0]! };
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
        response: { 200: envelope({ type: "array", items: categoryPost }) },
      },
    },
    async (request) => {
      try {
        return {
          success: true,
          message: "Data found.",
          data: (await pool.query(categoryPosts([request.query.category_id]))).rows,
        };
      } catch (error) {
        // Not a uuid: the value does not fit the column it is compared with.
        if (error instanceof pg.DatabaseError && DATA_EXCEPTION.test(error.code ?? ""))
          throw new Failure(400, "Invalid request: category_id is not valid for this query");
        throw error;
      }
    },
  );

  const shutdown = async () => {
    await app.close();
    await pool.end();
    if (process.connected) process.disconnect();
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);

  const address = await app.listen({ host: env.HOST || "127.0.0.1", port: Number(env.PORT || 3000) });
  console.log(`Listening on ${address}`);
}
