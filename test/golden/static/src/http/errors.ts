import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { isDatabaseUnavailable, isSchemaNewer } from "../db.js";
import { describeValidation } from "./validation.js";

/** A failure answered with its status and message in the envelope. */
export class Failure extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }

  /** The message the envelope answers to this request. */
  messageFor(_request: FastifyRequest): string {
    return this.message;
  }
}

/** A reference that refused a delete: how the refusal names it, and the versions that may (absent: all). */
export interface Referrer {
  table: string;
  versions?: readonly string[];
}

/**
 * The 409 of a delete that references refuse, naming them (`loans`, `comments (through posts)`)
 * as far as the request's version has their tables: a version's messages name only what it has.
 */
export class Referenced extends Failure {
  constructor(private readonly referrers: Referrer[]) {
    super(409, referencedBy(referrers));
  }

  override messageFor(request: FastifyRequest): string {
    if (this.referrers.every(({ versions }) => versions === undefined)) return this.message;
    // A table route's URL: /<project>/<table>/<version>/...
    const version = request.routeOptions.url?.split("/")[3] ?? "";
    return referencedBy(this.referrers.filter(({ versions }) => versions === undefined || versions.includes(version)));
  }
}

const referencedBy = (referrers: Referrer[]) =>
  `Record is referenced by ${referrers.length > 0 ? referrers.map(({ table }) => table).join(", ") : "other records"}`;

/**
 * The statuses `reject` answers with: the client and server errors HTTP names. Anything else (a
 * success, a redirect, 999) would not be a failure in the envelope: it is answered 500 and logged.
 */
const REJECT_STATUSES = [
  400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421, 422, 423, 424,
  425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
] as const;
export type RejectStatus = (typeof REJECT_STATUSES)[number];
const rejectStatuses: ReadonlySet<number> = new Set(REJECT_STATUSES);

/** A refusal made by your code with `reject`. */
class Rejection extends Failure {}

/**
 * A refusal for your code to throw (`throw reject(409, "That slot is taken")`): the client gets
 * this status and exactly this message in the envelope.
 */
export function reject(status: RejectStatus, message: string): Failure {
  return new Rejection(status, String(message));
}

/** The 404 of a record, a path or a route that is not there. */
export const notFoundFailure = () => new Failure(404, "Data not found");

export function notFound(): never {
  throw notFoundFailure();
}

export function invalid(problems: string[]): Failure {
  return new Failure(400, `Invalid request: ${problems.join("; ")}`);
}

const MAX_DRAINED_BYTES = 8 * 1024 * 1024;

/** Fastify's own errors, by code, as the envelope's status and message. */
const FRAMEWORK_FAILURES: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "Payload too large"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, "Invalid request: Content-Length does not match the body"],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, "Unsupported media type"],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "Invalid request: body must be a JSON object"],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "Invalid request: body is not valid JSON"],
  FST_ERR_BAD_URL: [404, "Data not found"],
  // A path segment longer than any id (100 characters): no record has it.
  FST_ERR_MAX_PARAM_LENGTH: [404, "Data not found"],
  // A QUERY request without a Content-Type.
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: [415, "Unsupported media type"],
};

const INTERNAL = "Internal server error";
/** What a server whose database a migration has changed under it answers, until it is regenerated. */
const SCHEMA_NEWER = "Service unavailable: the database schema is newer than this server";

/** An error as the failure the client gets, and the line the log gets for it, if any. */
export function failureFor(error: unknown, request: FastifyRequest): Failure {
  return failureOf(error as FastifyError | Failure, request);
}

function failureOf(error: FastifyError | Failure, request: FastifyRequest): Failure {
  if (error instanceof Rejection) {
    if (!rejectStatuses.has(error.statusCode)) {
      request.log.error(
        { err: error, route: routeOf(request), at: thrownAt(error) },
        `reject() takes a 4xx or 5xx status, not ${String(error.statusCode)}: answered 500`,
      );
      return new Failure(500, INTERNAL);
    }
    if (error.statusCode >= 500)
      request.log.warn(
        { route: routeOf(request), at: thrownAt(error) },
        `your code rejected the request with ${error.statusCode}`,
      );
    return error;
  }
  if (error instanceof Failure) return error;
  if (error.validation) return invalid(describeValidation(error.validation, error.validationContext));
  const known = error.code ? FRAMEWORK_FAILURES[error.code] : undefined;
  if (known) return new Failure(...known);
  // Any other error of a body parser (a body cut short among them).
  if (error.statusCode === 400) return invalid(["body is not valid JSON"]);
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, "database unavailable");
    return new Failure(503, "Service unavailable");
  }
  if (isSchemaNewer(error)) {
    request.log.error(
      { err: error },
      "the database schema is newer than this server (a table or column it uses is gone or changed): regenerate the server from the manifest and restart it",
    );
    return new Failure(503, SCHEMA_NEWER);
  }
  request.log.error({ err: error }, "request failed");
  return new Failure(500, INTERNAL);
}

/** The route a request reached, as the log names it: `POST /blog/posts/v1/create`. */
const routeOf = (request: FastifyRequest) => `${request.method} ${request.routeOptions.url ?? request.url}`;

/** Where your code made a refusal: the first frame of its stack in src/custom/ (`Object.beforeCreate (…/src/custom/hooks/posts.ts:5:20)`). */
const thrownAt = (error: Error) =>
  error.stack
    ?.split("\n")
    .find((line) => line.includes("/custom/"))
    ?.trim()
    .replace(/^at /, "");

export async function handleError(error: FastifyError | Failure, request: FastifyRequest, reply: FastifyReply) {
  const failure = failureOf(error, request);
  if (failure.statusCode === 413) await drain(request, MAX_DRAINED_BYTES);
  return reply.code(failure.statusCode).send({ success: false, message: failure.messageFor(request), data: [] });
}

export async function handleNotFound(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send({ success: false, message: "Data not found", data: [] });
}

/** Reads and discards what is left of a rejected body, so the client gets to read the answer. */
async function drain(request: FastifyRequest, limit: number): Promise<void> {
  const body = request.raw;
  if (body.readableEnded || body.destroyed) return;
  let received = 0;
  try {
    for await (const chunk of body) {
      received += (chunk as Buffer).length;
      if (received > limit) break;
    }
  } catch {
    // The client went away; there is nobody to answer.
  }
}
