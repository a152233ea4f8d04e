import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db.js";
import { found } from "../http/envelope.js";
import { prepareQuery } from "../query.js";
import { storedDateTime } from "../values.js";

const SQL = `
SELECT p.id, p.title, p.published, p.published_at, u.name AS author
FROM posts p JOIN users u ON u.id = p.user_id
WHERE p.published_at >= :since AND p.published = :published
ORDER BY p.published_at DESC
`;

interface Params {
  since: string;
  published: string;
}

const schema = {
  querystring: {
    type: "object",
    properties: {
      since: { type: "string", format: "datetime" },
      published: { type: "string", enum: ["true", "false"], description: "true or false" },
    },
    required: ["since", "published"],
    additionalProperties: false,
  },
} as const;

/** The recent_posts query, prepared once; parameters are bound, never spliced into the SQL. */
export function recentPostsQuery(db: Db) {
  const run = prepareQuery(db, SQL);
  return (params: Params) =>
    run({ since: storedDateTime(params.since), published: Number(params.published === "true") });
}

export type RecentPostsQuery = ReturnType<typeof recentPostsQuery>;

/** GET /blog/<version>/recent_posts */
export const recentPostsRoute: FastifyPluginAsync<{ query: RecentPostsQuery }> = async (app, { query }) => {
  app.get<{ Querystring: Params }>("/recent_posts", { schema }, async (request) => found(query(request.query)));
};
