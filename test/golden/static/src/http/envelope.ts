/** The response envelope every endpoint answers with. */

export interface Success<T> {
  success: true;
  message: string;
  data: T;
}

/**
 * `answer(value)`, at once when the value is there (SQLite's reads, and its writes without hooks),
 * else when its promise settles (PostgreSQL, writes with hooks). A handler that returns the answer
 * itself is answered in the same tick, without a promise of its own.
 */
export function after<T, R>(value: T | Promise<T>, answer: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(answer) : answer(value);
}

export const found = <T>(data: T): Success<T> => ({ success: true, message: "Data found.", data });

export const created = <T>(data: T): Success<T> => ({ success: true, message: "Record created successfully.", data });

export const updated = <T>(data: T): Success<T> => ({ success: true, message: "Record updated successfully.", data });

export const deleted = () => ({ success: true, message: "Record deleted successfully." });

/** Response schemas, so Fastify serializes envelopes with compiled serializers. */
export function envelopeSchema<T extends object>(data: T) {
  return {
    type: "object",
    properties: { success: { type: "boolean" }, message: { type: "string" }, data },
    required: ["success", "message", "data"],
  } as const;
}

export const deletedSchema = {
  type: "object",
  properties: { success: { type: "boolean" }, message: { type: "string" } },
  required: ["success", "message"],
} as const;
