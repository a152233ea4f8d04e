import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { numberId } from "../http/ids.js";
import type { CommentsInput, CommentsRecord } from "../schemas/comments.js";

const COLUMNS = `"id", "post_id", "author", "text"`;

/** The comments table's statements, prepared once, and the operations the routes run. */
export function commentsTable(db: Db) {
  const statements = {
    list: db.prepare<[], CommentsRecord>(`SELECT ${COLUMNS} FROM "comments" ORDER BY "id"`),
    find: db.prepare<[number], CommentsRecord>(`SELECT ${COLUMNS} FROM "comments" WHERE "id" = ?`),
    insert: db.prepare<StoredValues, CommentsRecord>(
      `INSERT INTO "comments" ("post_id", "author", "text") VALUES (@post_id, @author, @text) RETURNING ${COLUMNS}`,
    ),
    update: db.prepare<StoredValues, CommentsRecord>(
      `UPDATE "comments" SET "post_id" = iif(@set_post_id, @post_id, "post_id"), "author" = iif(@set_author, @author, "author"), "text" = iif(@set_text, @text, "text") WHERE "id" = @id RETURNING ${COLUMNS}`,
    ),
    remove: db.prepare<[number]>(`DELETE FROM "comments" WHERE "id" = ?`),
  };
  const references: ReferenceCheck[] = [
    {
      field: "post_id",
      table: "posts",
      exists: db.prepare(`SELECT 1 FROM "posts" WHERE "id" = ?`),
    },
  ];
  const referrers: ReferrerCheck[] = [];

  return {
    list(): CommentsRecord[] {
      return statements.list.all();
    },

    find(rawId: string): CommentsRecord | undefined {
      const id = numberId(rawId);
      const row = id === undefined ? undefined : statements.find.get(id);
      return row;
    },

    create(input: CommentsInput): CommentsRecord {
      try {
        const row = statements.insert.get({
          post_id: input.post_id,
          author: input.author,
          text: input.text,
        })!;
        return row;
      } catch (error) {
        throw writeFailure(error, input, references);
      }
    },

    update(rawId: string, changes: Partial<CommentsInput>): CommentsRecord | undefined {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      try {
        const row = statements.update.get({
          id,
          set_post_id: Number("post_id" in changes),
          post_id: changes.post_id ?? null,
          set_author: Number("author" in changes),
          author: changes.author ?? null,
          set_text: Number("text" in changes),
          text: changes.text ?? null,
        });
        return row;
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

export type CommentsTable = ReturnType<typeof commentsTable>;
