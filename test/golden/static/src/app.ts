import type https from "node:https";
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from "fastify";
import type { Config } from "./config.js";
import type { Db } from "./db.js";
import { health } from "./health.js";
import { loadCustomRoutes, loadHooks } from "./hooks.js";
import { keyAccess } from "./http/access.js";
import { audited, writeLog } from "./http/audit.js";
import { ajvOptions } from "./http/compilers.js";
import { keyCheck } from "./http/auth.js";
import { apiDocs } from "./http/docs.js";
import { answerClientError, createServer } from "./http/connections.js";
import { Failure, handleError, handleNotFound, notFoundFailure } from "./http/errors.js";
import { parseJsonBodies } from "./http/json.js";
import { answerWrongMethods, refusal } from "./http/methods.js";
import { openLimiter } from "./limits.js";
import { openLog, requestLog, type Log } from "./log.js";
import { api, routes } from "./routes.js";
import { openStore } from "./store.js";

/** The log levels at which each request is logged. */
const LOGGED_REQUESTS = new Set(["info", "debug", "trace"]);

/**
 * The Fastify application: checks, routes and error answers, logging to `log` (src/log.ts); listening
 * is the caller's.
 */
export async function buildApp(config: Config, db: Db, log: Log = openLog(config)): Promise<FastifyInstance> {
  const corsEnabled = config.corsOrigins.length > 0;
  const isPreflight = (request: FastifyRequest) =>
    corsEnabled && request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
  // The API reference and its documents are public with API_DOCS=on (their routes say so).
  const isPublic = (request: FastifyRequest) => request.routeOptions.config?.public === true;
  const checkKey = keyCheck(
    config.signatureKeys,
    config.apiKeys,
    (request) => isPreflight(request) || isPublic(request),
  );
  const logsRequests = LOGGED_REQUESTS.has(config.logLevel);

  const app: FastifyInstance = Fastify({
    // The server is made by createServer, HTTPS too (Fastify reads `https` to name its address).
    https: config.tls ?? null,
    serverFactory: (handler) => createServer(config, handler) as https.Server,
    clientErrorHandler: answerClientError,
    logger: log.options,
    // request.log: its lines carry the request's id; made the first time the request logs (src/log.ts).
    childLoggerFactory: requestLog,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
    // Errors met before routing (a path that is not valid percent-encoding): the key still comes first.
    frameworkErrors: (error, request, reply) => {
      const key = checkKey(request);
      return handleError(key instanceof Failure ? key : error, request, reply);
    },
    ajv: ajvOptions,
  });

  // API_KEY_<NAME> keys: each route learns, as it is registered, which of them may call it; with none,
  // nothing is registered and the key check is API_SIGNATURE_KEY's alone.
  const limiter = openLimiter(db, api.project);
  const access = config.apiKeys.length > 0 ? keyAccess(config.apiKeys, api, limiter) : undefined;
  if (access) {
    access.register(app);
    if (config.apiKeys.some((key) => key.limit !== undefined)) await limiter.prepare();
    for (const key of config.apiKeys) {
      if (key.expires !== undefined && key.expires <= Date.now()) {
        app.log.warn(`${key.variable} expired on ${new Date(key.expires).toISOString()}: it is refused (401)`);
      }
    }
  }

  if (corsEnabled) {
    // Loaded only when CORS is on: a few milliseconds of every start otherwise.
    const { default: cors } = await import("@fastify/cors");
    await app.register(cors, {
      origin: config.corsOrigins,
      // Every method a route may serve (the contract's GET, HEAD, POST and DELETE, and any of your own
      // routes'), and the list headers a browser script may read.
      methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
      exposedHeaders: ["Link", "X-Total-Count", "Retry-After"],
    });
  }
  // Every request, in one hook: the key first; then a request no route matched is answered before
  // its body is read: 405 for a known path in a method no route names (PROPFIND, TRACE…), else 404;
  // then an API_KEY_<NAME> key's scope (403) and limit (429).
  const wrongMethods = answerWrongMethods(app, { exceptOptions: corsEnabled });
  app.addHook("onRequest", (request, reply, done) => {
    const key = checkKey(request);
    if (key instanceof Failure) return done(key);
    if (!request.is404) return key === undefined ? done() : access!.check(request, reply, key, done);
    const allow = wrongMethods.allowedAt(request);
    if (allow === undefined) return done(notFoundFailure());
    reply.header("allow", allow);
    done(refusal());
  });
  // One line per request at info (src/log.ts): method, path without its query string, status and
  // milliseconds; never a header, so never the key. Not registered above info, where it would cost
  // every request. A write's line is its audit line (AUDIT_LOG): "write", with the key's name, the
  // action, the table, the id and the version too.
  const writes = config.auditLog ? writeLog(log, logsRequests) : undefined;
  if (logsRequests) {
    app.addHook("onResponse", (request, reply, done) => {
      log.request(request, reply, writes?.of(request));
      done();
    });
  }

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  // JSON only: bodies of any other type are read (so an oversized one is a 413 first), then refused.
  parseJsonBodies(app);
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, _body, done) => {
    done(new Failure(415, "Unsupported media type"), undefined);
  });

  const store = openStore(db, await loadHooks());
  app.addHook("onClose", async () => store.close());
  // Writes told to their log (AUDIT_LOG=off: the tables' writes are called directly).
  const tables = writes ? audited(store.tables, writes.write) : store.tables;
  await app.register(routes, { store: { ...store, tables }, audit: writes?.each });
  // Your own routes (src/custom/routes.ts), under the project's path, their schemas compiled at start.
  const custom = await loadCustomRoutes();
  if (custom) await app.register(custom, { prefix: `/${api.project}` });
  await app.register(apiDocs, { project: api.project, versions: api.versions, open: config.apiDocs });
  await app.register(health, { project: api.project, db });
  wrongMethods.register();
  return app;
}
