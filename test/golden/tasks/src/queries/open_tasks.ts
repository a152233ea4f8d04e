import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db.js";
import { found } from "../http/envelope.js";
import { prepareQuery } from "../query.js";

const SQL = `
SELECT id, title, status, due_at FROM tasks WHERE done = 0 ORDER BY due_at
`;

type Params = Record<string, never>;

const schema = {
  querystring: {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  },
} as const;

/** The open_tasks query, prepared once; parameters are bound, never spliced into the SQL. */
export function openTasksQuery(db: Db) {
  const run = prepareQuery(db, SQL);
  return (_params: Params) => run({});
}

export type OpenTasksQuery = ReturnType<typeof openTasksQuery>;

/** GET /tasks/<version>/open_tasks */
export const openTasksRoute: FastifyPluginAsync<{ query: OpenTasksQuery }> = async (app, { query }) => {
  app.get<{ Querystring: Params }>("/open_tasks", { schema }, async (request) => found(query(request.query)));
};
