import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { categoriesSchemas, type CategoriesInput } from "../../schemas/categories.js";
import type { CategoriesTable } from "../../tables/categories.js";

/** v1 routes of the categories table, under /blog/categories/v1. */
export const categoriesRoutes: FastifyPluginAsync<{ table: CategoriesTable }> = async (app, { table }) => {
  app.get("/list", { schema: categoriesSchemas.list }, async () => found(table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: categoriesSchemas.show }, async (request) =>
    found(table.find(request.params.id) ?? notFound()),
  );

  app.post<{ Body: CategoriesInput }>("/create", { schema: categoriesSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<CategoriesInput> }>(
    "/update/:id",
    { schema: categoriesSchemas.update },
    async (request) => updated(table.update(request.params.id, request.body) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: categoriesSchemas.remove }, async (request) => {
    if (!table.remove(request.params.id)) notFound();
    return deleted();
  });
};
