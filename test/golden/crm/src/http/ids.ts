/**
 * Record ids from the path. An id that cannot exist on the table (not a positive 32-bit integer,
 * not a UUID) is treated like a missing record: `undefined`, answered with 404.
 */

const MAX_ID = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function numberId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id <= MAX_ID ? id : undefined;
}

export function uuidId(raw: string): string | undefined {
  return UUID.test(raw) ? raw.toLowerCase() : undefined;
}

export interface IdParams {
  id: string;
}
