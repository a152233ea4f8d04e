import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import {
  scopeAllows,
  scopeProblems,
  type Action,
  type ApiShape,
  type KeyEntry,
  type RateLimit,
  type RouteTarget,
} from "../api-keys.js";
import { ConfigError } from "../config.js";
import { Failure } from "./errors.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * `"any"`: every valid key may call the route, whatever its scope (the OpenAPI documents, and
     * your own routes that say so). Otherwise an API_KEY_<NAME> key reaches only the table and
     * query routes its scope names.
     */
    keys?: "any";
    /** Which API_KEY_<NAME> keys may call the route, worked out once, when it is registered. */
    keyAccess?: RouteAccess;
  }
  interface FastifyRequest {
    /** The API_KEY_<NAME> key the request came with; undefined for API_SIGNATURE_KEY. */
    apiKey?: KeyEntry;
  }
}

interface RouteAccess {
  /** Every valid key may call the route. */
  any: boolean;
  allowed: ReadonlySet<KeyEntry>;
  /** The 403's message, and the one for a key whose scope pins versions. */
  refusal: string;
  pinnedRefusal: string;
}

/** The routes of a table's actions, as registered under `/<project>/<table>/<version>`, and their methods. */
const TABLE_ROUTES: Record<string, [Action, string[]]> = {
  "/list": ["list", ["GET", "HEAD"]],
  "/show/:id": ["show", ["GET", "HEAD"]],
  "/create": ["create", ["POST"]],
  "/update/:id": ["update", ["POST"]],
  "/delete/:id": ["delete", ["DELETE"]],
};

export const TOO_MANY_REQUESTS = "Too many requests";

/**
 * The counts of keys with a limit (src/limits.ts): undefined within the limit, else the seconds
 * until the window ends; at once when counted in memory (SQLite), when the database answers
 * (PostgreSQL).
 */
interface Counts {
  hit(key: KeyEntry & { limit: RateLimit }): number | undefined | Promise<number | undefined>;
}

/**
 * What API_KEY_<NAME> keys may do, checked before anything else of a request runs but the key
 * itself: each route, as it is registered, gets the set of keys whose scope reaches it, so that
 * checking a request is one lookup. Throws a ConfigError for a key whose scope names what the API
 * does not have.
 */
export function keyAccess(keys: readonly KeyEntry[], api: ApiShape, limiter: Counts) {
  for (const key of keys) {
    const problems = scopeProblems(key.scope, api);
    if (problems.length > 0) throw new ConfigError(`${key.variable}: ${problems.join("; ")}`);
  }
  const pinned = new Set(keys.filter((key) => key.scope.some((entry) => entry.version !== undefined)));
  const routeAccess = (route: RouteOptions & { prefix: string; routePath: string }): RouteAccess => {
    const methods = [route.method].flat();
    if (route.config?.keys === "any") return { any: true, allowed: new Set(), refusal: "", pinnedRefusal: "" };
    const target = routeTarget(api, route.prefix, route.routePath, methods);
    if (target === undefined) {
      // Your own routes, and anything else that does not say it takes every key: API_SIGNATURE_KEY only.
      const refusal = `This key may not call ${methods.join(", ")} ${route.url}.`;
      return { any: false, allowed: new Set(), refusal, pinnedRefusal: refusal };
    }
    const refusal =
      target.kind === "table"
        ? `This key may not ${target.action} ${target.name}`
        : `This key may not run the ${target.name} query`;
    return {
      any: false,
      allowed: new Set(keys.filter((key) => scopeAllows(key.scope, target))),
      refusal: `${refusal}.`,
      pinnedRefusal: `${refusal} in ${target.version}.`,
    };
  };

  return {
    /** Works out each route's access as it is registered: call before registering any. */
    register(app: FastifyInstance): void {
      app.decorateRequest("apiKey", undefined);
      app.addHook("onRoute", (route) => {
        route.config = { ...route.config, keyAccess: routeAccess(route) };
      });
    },

    /**
     * The rest of a routed request's check, once its key is known to be an API_KEY_<NAME> key: its
     * scope (403), then its limit (429 with Retry-After); `done` as a hook's.
     */
    check(request: FastifyRequest, reply: FastifyReply, key: KeyEntry, done: (error?: Error) => void): void {
      request.apiKey = key;
      const access = request.routeOptions.config.keyAccess;
      if (access === undefined || !(access.any || access.allowed.has(key))) {
        const message = access === undefined ? "This key may not call this route." : access.refusal;
        return done(new Failure(403, pinned.has(key) ? (access?.pinnedRefusal ?? message) : message));
      }
      if (!hasLimit(key)) return done();
      const limited = (retryAfter: number | undefined) => {
        if (retryAfter === undefined) return done();
        reply.header("retry-after", String(retryAfter));
        done(new Failure(429, TOO_MANY_REQUESTS));
      };
      const counted = limiter.hit(key);
      if (counted instanceof Promise) counted.then(limited, done);
      else limited(counted);
    },
  };
}

const hasLimit = (key: KeyEntry): key is KeyEntry & { limit: RateLimit } => key.limit !== undefined;

/**
 * The table action or custom query a route serves, from where it is registered (src/routes.ts:
 * `/<project>/<table>/<version>` and `/<project>/<version>`) and its path and methods; undefined for
 * any other route.
 */
function routeTarget(api: ApiShape, prefix: string, path: string, methods: string[]): RouteTarget | undefined {
  const [empty, project, ...rest] = prefix.split("/");
  if (empty !== "" || project !== api.project) return undefined;
  const servedIn = (versions: Readonly<Record<string, readonly string[]>>, name: string, version: string) =>
    Object.hasOwn(versions, name) && versions[name]!.includes(version);
  if (rest.length === 2) {
    const [table = "", version = ""] = rest;
    const route = TABLE_ROUTES[path];
    if (!route || !servedIn(api.tables, table, version)) return undefined;
    const [action, allowed] = route;
    return methods.every((method) => allowed.includes(method))
      ? { kind: "table", name: table, action, version }
      : undefined;
  }
  if (rest.length === 1) {
    const [version = ""] = rest;
    const query = path.slice(1);
    const reads = methods.every((method) => method === "GET" || method === "HEAD");
    return reads && servedIn(api.queries, query, version) ? { kind: "query", name: query, version } : undefined;
  }
  return undefined;
}
