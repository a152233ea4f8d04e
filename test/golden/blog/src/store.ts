import type { Db } from "./db.js";
import { usersTable } from "./tables/users.js";
import { postsTable } from "./tables/posts.js";
import { categoriesTable } from "./tables/categories.js";
import { commentsTable } from "./tables/comments.js";
import { categoryPostsQuery } from "./queries/category_posts.js";
import { recentPostsQuery } from "./queries/recent_posts.js";

/** Every table's and query's prepared statements, made once at start-up and shared by all versions. */
export function openStore(db: Db) {
  return {
    tables: {
      users: usersTable(db),
      posts: postsTable(db),
      categories: categoriesTable(db),
      comments: commentsTable(db),
    },
    queries: {
      category_posts: categoryPostsQuery(db),
      recent_posts: recentPostsQuery(db),
    },
  };
}

export type Store = ReturnType<typeof openStore>;
