import { METHODS as NODE_METHODS } from "node:http";
import type { FastifyInstance, HTTPMethods } from "fastify";
import { Failure } from "./errors.js";

/** The methods routes serve first, in the order `Allow` lists them; then every other method Node parses. */
const COMMON = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const METHODS = [...COMMON, ...NODE_METHODS.filter((method) => !COMMON.includes(method))] as HTTPMethods[];

/**
 * Makes every known path answer 405 to the methods it does not serve, whichever Node's HTTP parser
 * accepts (`PROPFIND`, `TRACE`, `CONNECT`…; Fastify alone answers 404, or does not route them), with
 * the `Allow` header listing those it does serve (RFC 9110). The 405 comes before the body is read.
 * Call before registering routes; call the returned function once they are registered.
 */
export function answerWrongMethods(app: FastifyInstance, { exceptOptions }: { exceptOptions: boolean }): () => void {
  for (const method of METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
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
        onRequest: async (_request, reply) => {
          reply.header("allow", allow);
          throw new Failure(405, "Method not allowed");
        },
        handler: async () => {
          throw new Failure(405, "Method not allowed");
        },
      });
    }
  };
}
