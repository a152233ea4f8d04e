import { isInt64 } from "./formats.js";
import { jsonNumber } from "./numbers.js";

/**
 * Record ids from the path. An id that cannot exist on the table (not a positive 32-bit integer,
 * not a UUID, not a 64-bit integer in digits) is treated like a missing record: `undefined`,
 * answered with 404. A number id is read as a JSON number is, so `1e0` is id 1, as it is in a body.
 */

const MAX_ID = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function numberId(raw: string): number | undefined {
  const id = jsonNumber(raw);
  return id !== undefined && Number.isInteger(id) && id >= 1 && id <= MAX_ID ? id : undefined;
}

export function uuidId(raw: string): string | undefined {
  return UUID.test(raw) ? raw.toLowerCase() : undefined;
}

/** A bigint id: its digits (without leading zeros), kept as text so that no digit is lost beyond 2^53. */
export function bigintId(raw: string): string | undefined {
  return isInt64(raw) ? BigInt(raw).toString() : undefined;
}

export interface IdParams {
  id: string;
}
