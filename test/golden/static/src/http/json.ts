import type { FastifyInstance } from "fastify";
import { invalid } from "./errors.js";
import { unstorableText } from "./text.js";

/**
 * Text that may need a closer look once parsed: a refused key, or any `\u` escape (which could
 * spell one, a NUL character or a lone surrogate).
 */
const SUSPECT = /__proto__|constructor|\\u/;

/**
 * Arrays and objects nested deeper than this are refused before parsing: a record is one flat
 * object, and a megabyte of `[[[[…` would cost a hundred times its size to parse.
 */
const MAX_DEPTH = 64;
/** Bodies from this size on are measured before they are parsed; below it, parsing costs little anyway. */
const MEASURED_FROM = 16 * 1024;

/**
 * Parses JSON bodies as Fastify does, refusing by name the keys that could reach an object's
 * prototype (`__proto__`, and `constructor` holding a `prototype`), where Fastify's own parser
 * calls such a body not valid JSON, and text that the databases cannot store alike.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = body as string;
    if (text === "") return done(invalid(["body must be a JSON object"]), undefined);
    if (text.length >= MEASURED_FROM && nestsDeeperThan(text, MAX_DEPTH)) {
      return done(invalid([`body nests arrays or objects more than ${MAX_DEPTH} deep`]), undefined);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(invalid(["body is not valid JSON"]), undefined);
    }
    const problems = SUSPECT.test(text) ? bodyProblems(value) : [];
    if (problems.length > 0) return done(invalid(problems), undefined);
    done(null, value);
  });
}

/** Whether JSON text nests arrays and objects deeper than `limit` (brackets inside strings aside). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // a backslash: the next character is escaped
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}

/**
 * What a parsed body holds that is refused: its first refused key alone, or else every text value
 * that cannot be stored, named by its path (`title`, or `tags.0` inside an array).
 */
function bodyProblems(body: unknown): string[] {
  const problems: string[] = [];
  const pending: [unknown, string][] = [[body, "body"]];
  for (let next = 0; next < pending.length; next++) {
    const [node, path] = pending[next]!;
    if (typeof node === "string") {
      const problem = unstorableText(path, node);
      if (problem) problems.push(problem);
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    if (Object.hasOwn(node, "__proto__")) return ["body key __proto__ is not allowed"];
    const record = node as Record<string, unknown>;
    if (Object.hasOwn(node, "constructor")) {
      const inner = record.constructor;
      if (inner !== null && typeof inner === "object" && Object.hasOwn(inner, "prototype"))
        return ["body key constructor.prototype is not allowed"];
    }
    for (const key of Object.keys(record)) pending.push([record[key], path === "body" ? key : `${path}.${key}`]);
  }
  return problems;
}
