import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summary } from "../../src/ai/summary.ts";
import { readManifest } from "../helpers/manifest.ts";
import { EXAMPLES } from "../helpers/generate.ts";

describe("the summary of a draft", () => {
  it("lists tables, fields with their types and options, relationships and queries", async () => {
    const { manifest } = await readManifest(join(EXAMPLES, "blog.yaml"));
    expect(summary(manifest)).toBe(
      [
        "Project blog: SQLite, API versions v1, v2",
        "",
        "Tables (4)",
        "  users",
        "    name        TEXT, required",
        "    email       EMAIL, required, unique",
        "    phone       PHONE",
        "    bio         PARAGRAPH",
        "    active      BOOLEAN, default true",
        "    created_at  DATETIME, default now",
        "  posts (versions v1, v2)",
        "    title         TEXT, required, max 200 characters",
        "    body          PARAGRAPH",
        "    published     BOOLEAN, default false",
        "    rating        NUMBER",
        "    user_id       NUMBER → users, required, on delete cascade",
        "    category_id   NUMBER → categories, on delete set null",
        "    published_at  DATETIME",
        "  categories (uuid id; versions v1)",
        "    name  TEXT, required, unique, max 80 characters",
        "  comments (versions v2)",
        "    post_id  NUMBER → posts, required, on delete restrict",
        "    author   TEXT, required",
        "    text     PARAGRAPH, required",
        "",
        "Relationships (3)",
        "  posts.user_id → users.id (on delete cascade)",
        "  posts.category_id → categories.id (on delete set null)",
        "  comments.post_id → posts.id (on delete restrict)",
        "",
        "Queries (2)",
        "  category_posts(category_id: TEXT) (versions v1, v2)",
        "    SELECT c.id AS category_id, c.name AS category_name,",
        "           p.id AS post_id, p.title AS description",
        "    FROM categories c JOIN posts p ON p.category_id = c.id",
        "    WHERE c.id = :category_id",
        "    ORDER BY p.id",
        "  recent_posts(since: DATETIME, published: BOOLEAN) (versions v2)",
        "    SELECT p.id, p.title, p.published, p.published_at, u.name AS author",
        "    FROM posts p JOIN users u ON u.id = p.user_id",
        "    WHERE p.published_at >= :since AND p.published = :published",
        "    ORDER BY p.published_at DESC",
      ].join("\n"),
    );
  });

  it("says when there are no relationships or queries, and shows PostgreSQL, integers and text defaults", () => {
    const text = summary({
      project: "tasks",
      database: "postgresql",
      tables: {
        tasks: {
          fields: {
            status: { type: "TEXT", default: "open" },
            priority: { type: "NUMBER", integer: true, default: 0 },
          },
        },
      },
    });
    expect(text).toBe(
      [
        "Project tasks: PostgreSQL, API version v1",
        "",
        "Tables (1)",
        "  tasks",
        '    status    TEXT, default "open"',
        "    priority  NUMBER, integer, default 0",
        "",
        "Relationships (0)",
        "  none",
        "",
        "Queries (0)",
        "  none",
      ].join("\n"),
    );
  });
});
