import type { FastifyInstance, HTTPMethods } from "fastify";
import { Failure } from "./errors.js";

const METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Makes every known path answer 405 to the methods it does not serve (Fastify alone answers
 * 404), with the `Allow` header listing those it does (RFC 9110). Call before registering routes;
 * call the returned function once they are registered.
 */
export function answerWrongMethods(app: FastifyInstance, { exceptOptions }: { exceptOptions: boolean }): () => void {
  const served = new Map<string, Set<string>>();
  app.addHook("onRoute", ({ url, method }) => {
    const methods = served.get(url) ?? new Set<string>();
    for (const name of [method].flat()) methods.add(name);
    served.set(url, methods);
  });
  return () => {
    for (const [url, methods] of [...served]) {
      const others = METHODS.filter((method) => !methods.has(method) && !(exceptOptions && method === "OPTIONS"));
      const allow = METHODS.filter((method) => !others.includes(method)).join(", ");
      app.route({
        method: others,
        url,
        handler: async (_request, reply) => {
          reply.header("allow", allow);
          throw new Failure(405, "Method not allowed");
        },
      });
    }
  };
}
