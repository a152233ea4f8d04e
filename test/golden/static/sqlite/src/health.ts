import type { FastifyPluginAsync } from "fastify";
import type { Db } from "./db.js";
import { Failure } from "./http/errors.js";

/**
 * GET /<project>/health, without a key (for load balancers and probes): 200 when the database file
 * answers, in the shape a PostgreSQL server answers (SQLite has no replicas), else 503.
 */
export const health: FastifyPluginAsync<{ project: string; db: Db }> = async (app, { project, db }) => {
  const probe = db.prepare("SELECT 1");
  app.get(`/${project}/health`, { config: { public: true, keys: "any" as const } }, async () => {
    try {
      probe.get();
    } catch {
      throw new Failure(503, "Service unavailable: the database cannot be read");
    }
    return { success: true, message: "Healthy", data: { primary: "up", replicas: [] } };
  });
};
