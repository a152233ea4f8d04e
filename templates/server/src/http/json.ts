import type { FastifyInstance } from "fastify";
import { invalid } from "./errors.js";

/** Text that may hold a refused key: the key itself, or any `\u` escape (which could spell one). */
const SUSPECT = /__proto__|constructor|\\u/;

/**
 * Parses JSON bodies as Fastify does, refusing the keys that could reach an object's prototype
 * (`__proto__`, and `constructor` holding a `prototype`) with a message naming the key, where
 * Fastify's own parser calls such a body not valid JSON.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = body as string;
    if (text === "") return done(invalid(["body must be a JSON object"]), undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(invalid(["body is not valid JSON"]), undefined);
    }
    const key = SUSPECT.test(text) ? refusedKey(value) : undefined;
    if (key !== undefined) return done(invalid([`body key ${key} is not allowed`]), undefined);
    done(null, value);
  });
}

/** The first refused key anywhere in a parsed body, if it has one. */
function refusedKey(value: unknown): string | undefined {
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object") continue;
    if (Object.hasOwn(node, "__proto__")) return "__proto__";
    const record = node as Record<string, unknown>;
    if (Object.hasOwn(node, "constructor")) {
      const inner = record.constructor;
      if (inner !== null && typeof inner === "object" && Object.hasOwn(inner, "prototype"))
        return "constructor.prototype";
    }
    for (const key of Object.keys(record)) pending.push(record[key]);
  }
  return undefined;
}
