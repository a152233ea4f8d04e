import { METHODS as NODE_METHODS } from "node:http";
import type { FastifyInstance, FastifyRequest, HTTPMethods } from "fastify";
import { Failure } from "./errors.js";

/** The methods routes serve, in the order `Allow` lists them. */
const METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Every other method Node's HTTP parser accepts (`PROPFIND`, `TRACE`, `CONNECT`…). */
const OTHER_METHODS = NODE_METHODS.filter((method) => !(METHODS as string[]).includes(method)) as HTTPMethods[];

export const refusal = () => new Failure(405, "Method not allowed");

/**
 * Makes every known path answer 405 to the methods it does not serve (Fastify alone answers 404),
 * with the `Allow` header listing those it does (RFC 9110), before the body is read: a route per
 * path for the methods of METHODS it does not serve, and `allowedAt` for the others (no route
 * names them, so they reach the not-found handler). Call before registering routes; call `register`
 * once they are registered.
 */
export function answerWrongMethods(app: FastifyInstance, { exceptOptions }: { exceptOptions: boolean }) {
  for (const method of OTHER_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  const served = new Map<string, Set<string>>();
  app.addHook("onRoute", ({ url, method }) => {
    const methods = served.get(url) ?? new Set<string>();
    for (const name of [method].flat()) methods.add(name);
    served.set(url, methods);
  });
  /** Each known path as a pattern, with its `Allow`. */
  const known: { pattern: RegExp; allow: string }[] = [];
  return {
    register(): void {
      for (const [url, methods] of [...served]) {
        const others = METHODS.filter((method) => !methods.has(method) && !(exceptOptions && method === "OPTIONS"));
        const allow = METHODS.filter((method) => !others.includes(method)).join(", ");
        known.push({ pattern: pathPattern(url), allow });
        app.route({
          method: others,
          url,
          // Every valid key gets the 405, whatever its scope.
          config: { keys: "any" },
          onRequest: async (_request, reply) => {
            reply.header("allow", allow);
            throw refusal();
          },
          handler: async () => {
            throw refusal();
          },
        });
      }
    },
    /**
     * For a request no route matched, in a method no route names: the `Allow` of its path when the
     * path is a known one, else undefined. (Routes for those methods on every path would slow the
     * server's start for requests that hardly ever come.)
     */
    allowedAt(request: FastifyRequest): string | undefined {
      if (!(OTHER_METHODS as string[]).includes(request.method)) return undefined;
      let path: string;
      try {
        path = decodeURIComponent(request.url.split("?", 1)[0]!);
      } catch {
        return undefined;
      }
      return known.find(({ pattern }) => pattern.test(path))?.allow;
    },
  };
}

/** A route's URL (`/blog/users/v1/show/:id`, `/blog/docs/*`) as a pattern of the paths it serves, a trailing slash allowed. */
function pathPattern(url: string): RegExp {
  const escaped = url.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  const source = escaped.replace(/:[A-Za-z0-9_]+/g, "[^/]+").replace(/\*/g, ".*");
  return new RegExp(`^${source.replace(/\/$/, "")}/?$`);
}
