import type { FastifyPluginAsync } from "fastify";
import { companiesRoutes } from "./companies.js";
import { contactsRoutes } from "./contacts.js";
import { dealsRoutes } from "./deals.js";
import { pipelineRoute } from "../../queries/pipeline.js";
import type { Store } from "../../store.js";

/** Everything served under v1. */
export const v1: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  await app.register(companiesRoutes, { prefix: "/companies/v1", table: store.tables.companies });
  await app.register(contactsRoutes, { prefix: "/contacts/v1", table: store.tables.contacts });
  await app.register(dealsRoutes, { prefix: "/deals/v1", table: store.tables.deals });
  await app.register(pipelineRoute, { prefix: "/v1", query: store.queries.pipeline });
};
