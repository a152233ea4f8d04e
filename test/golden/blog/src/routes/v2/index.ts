import type { FastifyPluginAsync } from "fastify";
import { usersRoutes } from "./users.js";
import { postsRoutes } from "./posts.js";
import { commentsRoutes } from "./comments.js";
import { categoryPostsRoute } from "../../queries/category_posts.js";
import { recentPostsRoute } from "../../queries/recent_posts.js";
import type { Store } from "../../store.js";

/** Everything served under v2. */
export const v2: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  await app.register(usersRoutes, { prefix: "/users/v2", table: store.tables.users });
  await app.register(postsRoutes, { prefix: "/posts/v2", table: store.tables.posts });
  await app.register(commentsRoutes, { prefix: "/comments/v2", table: store.tables.comments });
  await app.register(categoryPostsRoute, { prefix: "/v2", query: store.queries.category_posts });
  await app.register(recentPostsRoute, { prefix: "/v2", query: store.queries.recent_posts });
};
