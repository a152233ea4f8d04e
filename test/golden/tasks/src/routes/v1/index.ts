import type { FastifyPluginAsync } from "fastify";
import { tasksRoutes } from "./tasks.js";
import { openTasksRoute } from "../../queries/open_tasks.js";
import type { Store } from "../../store.js";

/** Everything served under v1. */
export const v1: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  await app.register(tasksRoutes, { prefix: "/tasks/v1", table: store.tables.tasks });
  await app.register(openTasksRoute, { prefix: "/v1", query: store.queries.open_tasks });
};
