import type { FastifyPluginAsync } from "fastify";
import type { Store } from "../store.js";
import { v1 } from "./v1/index.js";

/** All routes, under the project's name: /crm/... */
export const routes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  await app.register(v1, { prefix: "/crm", store });
};
