import type { FastifyPluginAsync } from "fastify";
import { usersRoutes } from "./users.js";
import { postsRoutes } from "./posts.js";
import { categoriesRoutes } from "./categories.js";
import { categoryPostsRoute } from "../../queries/category_posts.js";
import type { Store } from "../../store.js";

/** Everything served under v1. */
export const v1: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  await app.register(usersRoutes, { prefix: "/users/v1", table: store.tables.users });
  await app.register(postsRoutes, { prefix: "/posts/v1", table: store.tables.posts });
  await app.register(categoriesRoutes, { prefix: "/categories/v1", table: store.tables.categories });
  await app.register(categoryPostsRoute, { prefix: "/v1", query: store.queries.category_posts });
};
