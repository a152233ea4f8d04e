import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { Failure } from "./errors.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * An onRequest hook that admits a request only when `X-API-SIGNATURE` holds one of the keys.
 * Values are compared as SHA-256 digests with timingSafeEqual, and every key is compared, so the
 * time taken tells nothing about the keys.
 */
export function signatureCheck(keys: string[], isPreflight: (request: FastifyRequest) => boolean) {
  const digests = keys.map(digest);
  return async (request: FastifyRequest): Promise<void> => {
    if (isPreflight(request)) return;
    const header = request.headers["x-api-signature"];
    const presented = digest(typeof header === "string" ? header : "");
    let valid = false;
    for (const key of digests) valid = timingSafeEqual(presented, key) || valid;
    if (!valid) throw new Failure(401, "Invalid or missing API signature key");
  };
}
