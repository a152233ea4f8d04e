import type { FastifyPluginAsync } from "fastify";
import type { Store } from "../store.js";
import { v1 } from "./v1/index.js";
import { v2 } from "./v2/index.js";

/** All routes, under the project's name: /blog/... */
export const routes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  await app.register(v1, { prefix: "/blog", store });
  await app.register(v2, { prefix: "/blog", store });
};
