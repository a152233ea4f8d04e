import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { numberId } from "../http/ids.js";
import type { TasksInput, TasksRecord } from "../schemas/tasks.js";
import { apiBoolean, apiDateTime, storedBoolean, storedDateTime } from "../values.js";

/** A tasks row as SQLite holds it. */
interface TasksRow {
  id: number;
  title: string;
  description: string | null;
  status: string;
  due_at: string | null;
  priority: number | null;
  done: number;
}

const COLUMNS = `"id", "title", "description", "status", "due_at", "priority", "done"`;

/** Every field named, so each record has one shape (faster than spreading the row). */
function toRecord(row: TasksRow): TasksRecord {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    due_at: apiDateTime(row.due_at),
    priority: row.priority,
    done: apiBoolean(row.done),
  };
}

/** The tasks table's statements, prepared once, and the operations the routes run. */
export function tasksTable(db: Db) {
  const statements = {
    list: db.prepare<[], TasksRow>(`SELECT ${COLUMNS} FROM "tasks" ORDER BY "id"`),
    find: db.prepare<[number], TasksRow>(`SELECT ${COLUMNS} FROM "tasks" WHERE "id" = ?`),
    insert: db.prepare<StoredValues, TasksRow>(
      `INSERT INTO "tasks" ("title", "description", "status", "due_at", "priority", "done") VALUES (@title, @description, @status, @due_at, @priority, @done) RETURNING ${COLUMNS}`,
    ),
    update: db.prepare<StoredValues, TasksRow>(
      `UPDATE "tasks" SET "title" = iif(@set_title, @title, "title"), "description" = iif(@set_description, @description, "description"), "status" = iif(@set_status, @status, "status"), "due_at" = iif(@set_due_at, @due_at, "due_at"), "priority" = iif(@set_priority, @priority, "priority"), "done" = iif(@set_done, @done, "done") WHERE "id" = @id RETURNING ${COLUMNS}`,
    ),
    remove: db.prepare<[number]>(`DELETE FROM "tasks" WHERE "id" = ?`),
  };
  const references: ReferenceCheck[] = [];
  const referrers: ReferrerCheck[] = [];

  return {
    list(): TasksRecord[] {
      return statements.list.all().map(toRecord);
    },

    find(rawId: string): TasksRecord | undefined {
      const id = numberId(rawId);
      const row = id === undefined ? undefined : statements.find.get(id);
      return row && toRecord(row);
    },

    create(input: TasksInput): TasksRecord {
      try {
        const row = statements.insert.get({
          title: input.title,
          description: input.description ?? null,
          status: input.status === undefined ? "todo" : input.status,
          due_at: storedDateTime(input.due_at),
          priority: input.priority === undefined ? 0 : input.priority,
          done: input.done === undefined ? 0 : storedBoolean(input.done),
        })!;
        return toRecord(row);
      } catch (error) {
        throw writeFailure(error, input, references);
      }
    },

    update(rawId: string, changes: Partial<TasksInput>): TasksRecord | undefined {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      try {
        const row = statements.update.get({
          id,
          set_title: Number("title" in changes),
          title: changes.title ?? null,
          set_description: Number("description" in changes),
          description: changes.description ?? null,
          set_status: Number("status" in changes),
          status: changes.status ?? null,
          set_due_at: Number("due_at" in changes),
          due_at: storedDateTime(changes.due_at),
          set_priority: Number("priority" in changes),
          priority: changes.priority ?? null,
          set_done: Number("done" in changes),
          done: storedBoolean(changes.done),
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

export type TasksTable = ReturnType<typeof tasksTable>;
