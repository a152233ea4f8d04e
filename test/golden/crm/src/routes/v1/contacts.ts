import type { FastifyPluginAsync } from "fastify";
import { created, deleted, found, updated } from "../../http/envelope.js";
import { notFound } from "../../http/errors.js";
import type { IdParams } from "../../http/ids.js";
import { contactsSchemas, type ContactsInput } from "../../schemas/contacts.js";
import type { ContactsTable } from "../../tables/contacts.js";

/** v1 routes of the contacts table, under /crm/contacts/v1. */
export const contactsRoutes: FastifyPluginAsync<{ table: ContactsTable }> = async (app, { table }) => {
  app.get("/list", { schema: contactsSchemas.list }, async () => found(await table.list()));

  app.get<{ Params: IdParams }>("/show/:id", { schema: contactsSchemas.show }, async (request) =>
    found((await table.find(request.params.id)) ?? notFound()),
  );

  app.post<{ Body: ContactsInput }>("/create", { schema: contactsSchemas.create }, async (request, reply) =>
    reply.code(201).send(created(await table.create(request.body))),
  );

  app.post<{ Params: IdParams; Body: Partial<ContactsInput> }>(
    "/update/:id",
    { schema: contactsSchemas.update },
    async (request) => updated((await table.update(request.params.id, request.body)) ?? notFound()),
  );

  app.delete<{ Params: IdParams }>("/delete/:id", { schema: contactsSchemas.remove }, async (request) => {
    if (!(await table.remove(request.params.id))) notFound();
    return deleted();
  });
};
