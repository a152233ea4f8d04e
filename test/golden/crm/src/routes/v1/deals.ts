import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { dealsSchemas, type DealsInput } from "../../schemas/deals.js";
import type { DealsTable } from "../../tables/deals.js";

/** v1 routes of the deals table, under /crm/deals/v1. */
export const dealsRoutes: FastifyPluginAsync<{ table: DealsTable }> = async (app, { table }) => {
  app.get("/list", { schema: dealsSchemas.list }, async () => found(await table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: dealsSchemas.show }, async (request) =>
    found((await table.find(request.params.id)) ?? notFound()),
  );

  app.post<{ Body: DealsInput }>("/create", { schema: dealsSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(await table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<DealsInput> }>(
    "/update/:id",
    { schema: dealsSchemas.update },
    async (request) => updated((await table.update(request.params.id, request.body)) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: dealsSchemas.remove }, async (request) => {
    if (!(await table.remove(request.params.id))) notFound();
    return deleted();
  });
};
