import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { isDatabaseUnavailable } from "../db.js";
import { describeValidation } from "./validation.js";

/** A failure answered with its status and message in the envelope. */
export class Failure extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A refusal for your code to throw (`throw reject(409, "That slot is taken")`): the client gets
 * this status and exactly this message in the envelope.
 */
export function reject(status: number, message: string): Failure {
  return new Failure(status, message);
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

function failureOf(error: FastifyError | Failure): Failure {
  if (error instanceof Failure) return error;
  if (error.validation) return invalid(describeValidation(error.validation, error.validationContext));
  const known = error.code ? FRAMEWORK_FAILURES[error.code] : undefined;
  if (known) return new Failure(...known);
  // Any other error of a body parser (a body cut short among them).
  if (error.statusCode === 400) return invalid(["body is not valid JSON"]);
  if (isDatabaseUnavailable(error)) return new Failure(503, "Service unavailable");
  return new Failure(500, "Internal server error");
}

export async function handleError(error: FastifyError | Failure, request: FastifyRequest, reply: FastifyReply) {
  const failure = failureOf(error);
  if (failure.statusCode === 500) request.log.error({ err: error }, "request failed");
  if (failure.statusCode === 503) request.log.warn({ err: error }, "database unavailable");
  if (failure.statusCode === 413) await drain(request, MAX_DRAINED_BYTES);
  return reply.code(failure.statusCode).send({ success: false, message: failure.message, data: [] });
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
