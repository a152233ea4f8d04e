import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { tasksSchemas, type TasksInput } from "../../schemas/tasks.js";
import type { TasksTable } from "../../tables/tasks.js";

/** v1 routes of the tasks table, under /tasks/tasks/v1. */
export const tasksRoutes: FastifyPluginAsync<{ table: TasksTable }> = async (app, { table }) => {
  app.get("/list", { schema: tasksSchemas.list }, async () => found(table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: tasksSchemas.show }, async (request) =>
    found(table.find(request.params.id) ?? notFound()),
  );

  app.post<{ Body: TasksInput }>("/create", { schema: tasksSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<TasksInput> }>(
    "/update/:id",
    { schema: tasksSchemas.update },
    async (request) => updated(table.update(request.params.id, request.body) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: tasksSchemas.remove }, async (request) => {
    if (!table.remove(request.params.id)) notFound();
    return deleted();
  });
};
