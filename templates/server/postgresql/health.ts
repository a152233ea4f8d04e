import type { FastifyPluginAsync } from "fastify";
import { databaseHealth, type Db } from "./db.js";
import { Failure } from "./http/errors.js";

/**
 * GET /<project>/health, without a key (for load balancers and probes): 200 with the primary's
 * state and each read replica's (`up`, `lagging`, `down`, and its lag in milliseconds when known),
 * 503 when the primary cannot be reached. It names no address. The replicas' changes of state are
 * logged, once each, in the server's log.
 */
export const health: FastifyPluginAsync<{ project: string; db: Db }> = async (app, { project, db }) => {
  db.watch(app.log);
  app.get(`/${project}/health`, { config: { public: true, keys: "any" as const } }, async () => {
    const state = await databaseHealth(db);
    if (state.primary !== "up") throw new Failure(503, "Service unavailable: the primary database cannot be reached");
    return { success: true, message: "Healthy", data: state };
  });
};
