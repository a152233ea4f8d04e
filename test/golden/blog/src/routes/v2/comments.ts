import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { commentsSchemas, type CommentsInput } from "../../schemas/comments.js";
import type { CommentsTable } from "../../tables/comments.js";

/** v2 routes of the comments table, under /blog/comments/v2. */
export const commentsRoutes: FastifyPluginAsync<{ table: CommentsTable }> = async (app, { table }) => {
  app.get("/list", { schema: commentsSchemas.list }, async () => found(table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: commentsSchemas.show }, async (request) =>
    found(table.find(request.params.id) ?? notFound()),
  );

  app.post<{ Body: CommentsInput }>("/create", { schema: commentsSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<CommentsInput> }>(
    "/update/:id",
    { schema: commentsSchemas.update },
    async (request) => updated(table.update(request.params.id, request.body) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: commentsSchemas.remove }, async (request) => {
    if (!table.remove(request.params.id)) notFound();
    return deleted();
  });
};
