import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db.js";
import { found } from "../http/envelope.js";
import { prepareQuery } from "../query.js";

const SQL = `
SELECT c.id AS category_id, c.name AS category_name,
       p.id AS post_id, p.title AS description
FROM categories c JOIN posts p ON p.category_id = c.id
WHERE c.id = :category_id
ORDER BY p.id
`;

interface Params {
  category_id: string;
}

const schema = {
  querystring: {
    type: "object",
    properties: {
      category_id: { type: "string" },
    },
    required: ["category_id"],
    additionalProperties: false,
  },
} as const;

/** The category_posts query, prepared once; parameters are bound, never spliced into the SQL. */
export function categoryPostsQuery(db: Db) {
  const run = prepareQuery(db, SQL);
  return (params: Params) => run({ category_id: params.category_id });
}

export type CategoryPostsQuery = ReturnType<typeof categoryPostsQuery>;

/** GET /blog/<version>/category_posts */
export const categoryPostsRoute: FastifyPluginAsync<{ query: CategoryPostsQuery }> = async (app, { query }) => {
  app.get<{ Querystring: Params }>("/category_posts", { schema }, async (request) => found(query(request.query)));
};
