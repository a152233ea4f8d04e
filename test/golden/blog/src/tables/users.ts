import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { numberId } from "../http/ids.js";
import type { UsersInput, UsersRecord } from "../schemas/users.js";
import { apiBoolean, apiDateTime, storedBoolean, storedDateTime, storedNow } from "../values.js";

/** A users row as SQLite holds it. */
interface UsersRow {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  bio: string | null;
  active: number | null;
  created_at: string | null;
}

const COLUMNS = `"id", "name", "email", "phone", "bio", "active", "created_at"`;

/** Every field named, so each record has one shape (faster than spreading the row). */
function toRecord(row: UsersRow): UsersRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    bio: row.bio,
    active: apiBoolean(row.active),
    created_at: apiDateTime(row.created_at),
  };
}

/** The users table's statements, prepared once, and the operations the routes run. */
export function usersTable(db: Db) {
  const statements = {
    list: db.prepare<[], UsersRow>(`SELECT ${COLUMNS} FROM "users" ORDER BY "id"`),
    find: db.prepare<[number], UsersRow>(`SELECT ${COLUMNS} FROM "users" WHERE "id" = ?`),
    insert: db.prepare<StoredValues, UsersRow>(
      `INSERT INTO "users" ("name", "email", "phone", "bio", "active", "created_at") VALUES (@name, @email, @phone, @bio, @active, @created_at) RETURNING ${COLUMNS}`,
    ),
    update: db.prepare<StoredValues, UsersRow>(
      `UPDATE "users" SET "name" = iif(@set_name, @name, "name"), "email" = iif(@set_email, @email, "email"), "phone" = iif(@set_phone, @phone, "phone"), "bio" = iif(@set_bio, @bio, "bio"), "active" = iif(@set_active, @active, "active"), "created_at" = iif(@set_created_at, @created_at, "created_at") WHERE "id" = @id RETURNING ${COLUMNS}`,
    ),
    remove: db.prepare<[number]>(`DELETE FROM "users" WHERE "id" = ?`),
  };
  const references: ReferenceCheck[] = [];
  const referrers: ReferrerCheck[] = [
    {
      table: "posts",
      holds: db.prepare(`SELECT 1 FROM "posts" WHERE "user_id" = ? LIMIT 1`),
    },
  ];

  return {
    list(): UsersRecord[] {
      return statements.list.all().map(toRecord);
    },

    find(rawId: string): UsersRecord | undefined {
      const id = numberId(rawId);
      const row = id === undefined ? undefined : statements.find.get(id);
      return row && toRecord(row);
    },

    create(input: UsersInput): UsersRecord {
      try {
        const row = statements.insert.get({
          name: input.name,
          email: input.email,
          phone: input.phone ?? null,
          bio: input.bio ?? null,
          active: input.active === undefined ? 1 : storedBoolean(input.active),
          created_at: input.created_at === undefined ? storedNow() : storedDateTime(input.created_at),
        })!;
        return toRecord(row);
      } catch (error) {
        throw writeFailure(error, input, references);
      }
    },

    update(rawId: string, changes: Partial<UsersInput>): UsersRecord | undefined {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      try {
        const row = statements.update.get({
          id,
          set_name: Number("name" in changes),
          name: changes.name ?? null,
          set_email: Number("email" in changes),
          email: changes.email ?? null,
          set_phone: Number("phone" in changes),
          phone: changes.phone ?? null,
          set_bio: Number("bio" in changes),
          bio: changes.bio ?? null,
          set_active: Number("active" in changes),
          active: storedBoolean(changes.active),
          set_created_at: Number("created_at" in changes),
          created_at: storedDateTime(changes.created_at),
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

export type UsersTable = ReturnType<typeof usersTable>;
