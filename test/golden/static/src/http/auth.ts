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
 *
 * A connection remembers the last such key presented on it, so that its next requests (a
 * keep-alive client sends the same key on each) skip the hash: the value is compared with the one
 * remembered by timingSafeEqual, as API_SIGNATURE_KEY is (a proxy's connection may carry several
 * clients' keys).
 */
export function keyCheck(
  keys: string[],
  scopedKeys: readonly KeyEntry[],
  isExempt: (request: FastifyRequest) => boolean,
) {
  const expected = keys.map((key) => Buffer.from(key, "utf8"));
  const findScoped = scopedKeyLookup(scopedKeys);
  const remembered = new WeakMap<object, { presented: Buffer; key: KeyEntry }>();
  return (request: FastifyRequest): Failure | KeyEntry | undefined => {
    const header = request.headers["x-api-signature"];
    const presented = Buffer.from(typeof header === "string" ? header : "", "utf8");
    let valid = false;
    for (const key of expected) {
      const same = presented.length === key.length ? timingSafeEqual(presented, key) : !timingSafeEqual(key, key);
      valid = same || valid;
    }
    if (valid) return undefined;
    if (findScoped !== undefined && typeof header === "string") {
      const socket = request.raw.socket;
      const last = remembered.get(socket);
      if (
        last !== undefined &&
        last.presented.length === presented.length &&
        timingSafeEqual(last.presented, presented)
      ) {
        const { expires } = last.key;
        if (expires === undefined || Date.now() < expires) return last.key;
      } else {
        const scoped = findScoped(header);
        if (scoped !== undefined) {
          // A copy of its own: the value's buffer is a slice of a shared pool, which it would keep alive.
          const copy = Buffer.allocUnsafeSlow(presented.length);
          presented.copy(copy);
          remembered.set(socket, { presented: copy, key: scoped });
          return scoped;
        }
      }
    }
    return isExempt(request) ? undefined : new Failure(401, REFUSED);
  };
}
