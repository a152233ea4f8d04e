import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { postsSchemas, type PostsInput } from "../../schemas/posts.js";
import type { PostsTable } from "../../tables/posts.js";

/** v2 routes of the posts table, under /blog/posts/v2. */
export const postsRoutes: FastifyPluginAsync<{ table: PostsTable }> = async (app, { table }) => {
  app.get("/list", { schema: postsSchemas.list }, async () => found(table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: postsSchemas.show }, async (request) =>
    found(table.find(request.params.id) ?? notFound()),
  );

  app.post<{ Body: PostsInput }>("/create", { schema: postsSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<PostsInput> }>(
    "/update/:id",
    { schema: postsSchemas.update },
    async (request) => updated(table.update(request.params.id, request.body) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: postsSchemas.remove }, async (request) => {
    if (!table.remove(request.params.id)) notFound();
    return deleted();
  });
};
