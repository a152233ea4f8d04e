import { timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { Failure } from "./errors.js";

const REFUSED = "Invalid or missing API signature key";

/**
 * The key check every request passes first: undefined when `X-API-SIGNATURE` holds one of the
 * keys or the request is exempt (a CORS preflight, a public route), else the 401 to answer.
 * Every key is compared with timingSafeEqual, one of equal length byte by byte and any other with
 * itself, so the time taken depends on the keys' lengths and never on their bytes. Exemption is
 * only asked of requests without a valid key.
 */
export function keyCheck(keys: string[], isExempt: (request: FastifyRequest) => boolean) {
  const expected = keys.map((key) => Buffer.from(key, "utf8"));
  return (request: FastifyRequest): Failure | undefined => {
    const header = request.headers["x-api-signature"];
    const presented = Buffer.from(typeof header === "string" ? header : "", "utf8");
    let valid = false;
    for (const key of expected) {
      const same = presented.length === key.length ? timingSafeEqual(presented, key) : !timingSafeEqual(key, key);
      valid = same || valid;
    }
    return valid || isExempt(request) ? undefined : new Failure(401, REFUSED);
  };
}
