import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { companiesSchemas, type CompaniesInput } from "../../schemas/companies.js";
import type { CompaniesTable } from "../../tables/companies.js";

/** v1 routes of the companies table, under /crm/companies/v1. */
export const companiesRoutes: FastifyPluginAsync<{ table: CompaniesTable }> = async (app, { table }) => {
  app.get("/list", { schema: companiesSchemas.list }, async () => found(await table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: companiesSchemas.show }, async (request) =>
    found((await table.find(request.params.id)) ?? notFound()),
  );

  app.post<{ Body: CompaniesInput }>("/create", { schema: companiesSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(await table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<CompaniesInput> }>(
    "/update/:id",
    { schema: companiesSchemas.update },
    async (request) => updated((await table.update(request.params.id, request.body)) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: companiesSchemas.remove }, async (request) => {
    if (!(await table.remove(request.params.id))) notFound();
    return deleted();
  });
};
