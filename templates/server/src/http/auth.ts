import { timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { scopedKeyLookup, type KeyEntry } from "../api-keys.js";
import { Failure } from "./errors.js";

const REFUSED = "Invalid or missing API signature key";

/**
 * The key check every request passes first: undefined when `X-API-SIGNATURE` holds one of the
 * API_SIGNATURE_KEY keys (full access) or the request is exempt (a CORS preflight, a public route),
 * the key's entry when it holds the secret of an API_KEY_<NAME> key that has not expired, else the
 * 401 to answer. Exemption is only asked of requests without a valid key.
 *
 * Neither comparison takes a time that depends on a secret's bytes. Every API_SIGNATURE_KEY key is
 * compared with timingSafeEqual, one of equal length byte by byte and any other with itself, so the
 * time depends on the keys' lengths alone. The API_KEY_<NAME> keys are known by the SHA-256 of their
 * secrets only: the presented value is hashed first, then its hash looked up among theirs. A lookup
 * may end sooner or later depending on how much of the presented value's hash matches a stored one,
 * but that hash is not something a client can steer (finding a value whose hash matches more of one
 * is SHA-256's preimage problem), and the stored hashes are no secrets a client could use anyway.
 */
export function keyCheck(
  keys: string[],
  scopedKeys: readonly KeyEntry[],
  isExempt: (request: FastifyRequest) => boolean,
) {
  const expected = keys.map((key) => Buffer.from(key, "utf8"));
  const findScoped = scopedKeyLookup(scopedKeys);
  return (request: FastifyRequest): Failure | KeyEntry | undefined => {
    const header = request.headers["x-api-signature"];
    const presented = Buffer.from(typeof header === "string" ? header : "", "utf8");
    let valid = false;
    for (const key of expected) {
      const same = presented.length === key.length ? timingSafeEqual(presented, key) : !timingSafeEqual(key, key);
      valid = same || valid;
    }
    if (valid) return undefined;
    const scoped = findScoped && typeof header === "string" ? findScoped(header) : undefined;
    if (scoped !== undefined) return scoped;
    return isExempt(request) ? undefined : new Failure(401, REFUSED);
  };
}
