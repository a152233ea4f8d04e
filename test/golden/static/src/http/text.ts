import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { invalid } from "./errors.js";

/**
 * Text that the two databases would not store alike is refused wherever text comes in (bodies,
 * list filters, query parameters): the NUL character, which PostgreSQL cannot store in text, and
 * a lone UTF-16 surrogate (a `\ud800` escape without its pair), which has no UTF-8 form at all.
 */

const LONE_SURROGATE = /\p{Cs}/u;

/** Why `text`, the value of `name`, cannot be stored, or undefined when it can. */
export function unstorableText(name: string, text: string): string | undefined {
  if (text.includes("\0")) return `${name} must not contain the NUL character`;
  if (LONE_SURROGATE.test(text)) return `${name} must not contain a lone UTF-16 surrogate`;
  return undefined;
}

/** The problems of every text value among `values`, named by their keys. */
export function unstorableValues(values: object): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const problem = typeof value === "string" ? unstorableText(name, value) : undefined;
    if (problem) problems.push(problem);
  }
  return problems;
}

/** A preHandler hook: a 400 naming every query-string parameter whose text cannot be stored. */
export function storableQueryString(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const problems = unstorableValues(request.query as object);
  done(problems.length > 0 ? invalid(problems) : undefined);
}
