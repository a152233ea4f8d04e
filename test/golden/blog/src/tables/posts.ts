import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { numberId } from "../http/ids.js";
import type { PostsInput, PostsRecord } from "../schemas/posts.js";
import { apiBoolean, apiDateTime, storedBoolean, storedDateTime } from "../values.js";

/** A posts row as SQLite holds it. */
interface PostsRow {
  id: number;
  title: string;
  body: string | null;
  published: number | null;
  rating: number | null;
  user_id: number;
  category_id: string | null;
  published_at: string | null;
}

const COLUMNS = `"id", "title", "body", "published", "rating", "user_id", "category_id", "published_at"`;

/** Every field named, so each record has one shape (faster than spreading the row). */
function toRecord(row: PostsRow): PostsRecord {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    published: apiBoolean(row.published),
    rating: row.rating,
    user_id: row.user_id,
    category_id: row.category_id,
    published_at: apiDateTime(row.published_at),
  };
}

/** The posts table's statements, prepared once, and the operations the routes run. */
export function postsTable(db: Db) {
  const statements = {
    list: db.prepare<[], PostsRow>(`SELECT ${COLUMNS} FROM "posts" ORDER BY "id"`),
    find: db.prepare<[number], PostsRow>(`SELECT ${COLUMNS} FROM "posts" WHERE "id" = ?`),
    insert: db.prepare<StoredValues, PostsRow>(
      `INSERT INTO "posts" ("title", "body", "published", "rating", "user_id", "category_id", "published_at") VALUES (@title, @body, @published, @rating, @user_id, @category_id, @published_at) RETURNING ${COLUMNS}`,
    ),
    update: db.prepare<StoredValues, PostsRow>(
      `UPDATE "posts" SET "title" = iif(@set_title, @title, "title"), "body" = iif(@set_body, @body, "body"), "published" = iif(@set_published, @published, "published"), "rating" = iif(@set_rating, @rating, "rating"), "user_id" = iif(@set_user_id, @user_id, "user_id"), "category_id" = iif(@set_category_id, @category_id, "category_id"), "published_at" = iif(@set_published_at, @published_at, "published_at") WHERE "id" = @id RETURNING ${COLUMNS}`,
    ),
    remove: db.prepare<[number]>(`DELETE FROM "posts" WHERE "id" = ?`),
  };
  const references: ReferenceCheck[] = [
    {
      field: "user_id",
      table: "users",
      exists: db.prepare(`SELECT 1 FROM "users" WHERE "id" = ?`),
    },
    {
      field: "category_id",
      table: "categories",
      exists: db.prepare(`SELECT 1 FROM "categories" WHERE "id" = ?`),
    },
  ];
  const referrers: ReferrerCheck[] = [
    {
      table: "comments",
      holds: db.prepare(`SELECT 1 FROM "comments" WHERE "post_id" = ? LIMIT 1`),
    },
  ];

  return {
    list(): PostsRecord[] {
      return statements.list.all().map(toRecord);
    },

    find(rawId: string): PostsRecord | undefined {
      const id = numberId(rawId);
      const row = id === undefined ? undefined : statements.find.get(id);
      return row && toRecord(row);
    },

    create(input: PostsInput): PostsRecord {
      try {
        const row = statements.insert.get({
          title: input.title,
          body: input.body ?? null,
          published: input.published === undefined ? 0 : storedBoolean(input.published),
          rating: input.rating ?? null,
          user_id: input.user_id,
          category_id: input.category_id ?? null,
          published_at: storedDateTime(input.published_at),
        })!;
        return toRecord(row);
      } catch (error) {
        throw writeFailure(error, input, references);
      }
    },

    update(rawId: string, changes: Partial<PostsInput>): PostsRecord | undefined {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      try {
        const row = statements.update.get({
          id,
          set_title: Number("title" in changes),
          title: changes.title ?? null,
          set_body: Number("body" in changes),
          body: changes.body ?? null,
          set_published: Number("published" in changes),
          published: storedBoolean(changes.published),
          set_rating: Number("rating" in changes),
          rating: changes.rating ?? null,
          set_user_id: Number("user_id" in changes),
          user_id: changes.user_id ?? null,
          set_category_id: Number("category_id" in changes),
          category_id: changes.category_id ?? null,
          set_published_at: Number("published_at" in changes),
          published_at: storedDateTime(changes.published_at),
        });
        return row && toRecord(row);
      } catch (error) {
        throw writeFailure(error, changes, references);
      }
    },

    remove(rawId: string): boolean {
      const id = numberId(rawId);
      if (id === undefined) return false;
      try {
        return statements.remove.run(id).changes > 0;
      } catch (error) {
        throw deleteFailure(error, id, referrers);
      }
    },
  };
}

export type PostsTable = ReturnType<typeof postsTable>;
