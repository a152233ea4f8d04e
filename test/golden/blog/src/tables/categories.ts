import { randomUUID } from "node:crypto";
import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { uuidId } from "../http/ids.js";
import type { CategoriesInput, CategoriesRecord } from "../schemas/categories.js";

const COLUMNS = `"id", "name"`;

/** The categories table's statements, prepared once, and the operations the routes run. */
export function categoriesTable(db: Db) {
  const statements = {
    list: db.prepare<[], CategoriesRecord>(`SELECT ${COLUMNS} FROM "categories" ORDER BY "id"`),
    find: db.prepare<[string], CategoriesRecord>(`SELECT ${COLUMNS} FROM "categories" WHERE "id" = ?`),
    insert: db.prepare<StoredValues, CategoriesRecord>(
      `INSERT INTO "categories" ("id", "name") VALUES (@id, @name) RETURNING ${COLUMNS}`,
    ),
    update: db.prepare<StoredValues, CategoriesRecord>(
      `UPDATE "categories" SET "name" = iif(@set_name, @name, "name") WHERE "id" = @id RETURNING ${COLUMNS}`,
    ),
    remove: db.prepare<[string]>(`DELETE FROM "categories" WHERE "id" = ?`),
  };
  const references: ReferenceCheck[] = [];
  const referrers: ReferrerCheck[] = [
    {
      table: "posts",
      holds: db.prepare(`SELECT 1 FROM "posts" WHERE "category_id" = ? LIMIT 1`),
    },
  ];

  return {
    list(): CategoriesRecord[] {
      return statements.list.all();
    },

    find(rawId: string): CategoriesRecord | undefined {
      const id = uuidId(rawId);
      const row = id === undefined ? undefined : statements.find.get(id);
      return row;
    },

    create(input: CategoriesInput): CategoriesRecord {
      try {
        const row = statements.insert.get({
          id: randomUUID(),
          name: input.name,
        })!;
        return row;
      } catch (error) {
        throw writeFailure(error, input, references);
      }
    },

    update(rawId: string, changes: Partial<CategoriesInput>): CategoriesRecord | undefined {
      const id = uuidId(rawId);
      if (id === undefined) return undefined;
      try {
        const row = statements.update.get({
          id,
          set_name: Number("name" in changes),
          name: changes.name ?? null,
        });
        return row;
      } catch (error) {
        throw writeFailure(error, changes, references);
      }
    },

    remove(rawId: string): boolean {
      const id = uuidId(rawId);
      if (id === undefined) return false;
      try {
        return statements.remove.run(id).changes > 0;
      } catch (error) {
        throw deleteFailure(error, id, referrers);
      }
    },
  };
}

export type CategoriesTable = ReturnType<typeof categoriesTable>;
