import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { usersSchemas, type UsersInput } from "../../schemas/users.js";
import type { UsersTable } from "../../tables/users.js";

/** v2 routes of the users table, under /blog/users/v2. */
export const usersRoutes: FastifyPluginAsync<{ table: UsersTable }> = async (app, { table }) => {
  app.get("/list", { schema: usersSchemas.list }, async () => found(table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: usersSchemas.show }, async (request) =>
    found(table.find(request.params.id) ?? notFound()),
  );

  app.post<{ Body: UsersInput }>("/create", { schema: usersSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<UsersInput> }>(
    "/update/:id",
    { schema: usersSchemas.update },
    async (request) => updated(table.update(request.params.id, request.body) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: usersSchemas.remove }, async (request) => {
    if (!table.remove(request.params.id)) notFound();
    return deleted();
  });
};
