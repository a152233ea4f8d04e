import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { numberId } from "../http/ids.js";
import type { DealsInput, DealsRecord } from "../schemas/deals.js";
import { storedDateTime } from "../values.js";

const COLUMNS = `"id", "contact_id", "title", "amount", "closes_at", "notes"`;

/** The deals table's statements, prepared by each pooled connection on first use. */
export function dealsTable(db: Db) {
  const statements = {
    list: { name: "deals.list", text: `SELECT ${COLUMNS} FROM "deals" ORDER BY "id"` },
    find: { name: "deals.find", text: `SELECT ${COLUMNS} FROM "deals" WHERE "id" = $1` },
    insert: {
      name: "deals.insert",
      text: `INSERT INTO "deals" ("contact_id", "title", "amount", "closes_at", "notes") VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    },
    update: {
      name: "deals.update",
      text: `UPDATE "deals" SET "contact_id" = CASE WHEN $2 THEN $3 ELSE "contact_id" END, "title" = CASE WHEN $4 THEN $5 ELSE "title" END, "amount" = CASE WHEN $6 THEN $7 ELSE "amount" END, "closes_at" = CASE WHEN $8 THEN $9 ELSE "closes_at" END, "notes" = CASE WHEN $10 THEN $11 ELSE "notes" END WHERE "id" = $1 RETURNING ${COLUMNS}`,
    },
    remove: { name: "deals.remove", text: `DELETE FROM "deals" WHERE "id" = $1` },
  };
  const references: ReferenceCheck[] = [
    {
      field: "contact_id",
      table: "contacts",
      exists: { name: "contacts.exists", text: `SELECT 1 FROM "contacts" WHERE "id" = $1` },
    },
  ];
  const referrers: ReferrerCheck[] = [];

  return {
    async list(): Promise<DealsRecord[]> {
      return (await db.query<DealsRecord>(statements.list)).rows;
    },

    async find(rawId: string): Promise<DealsRecord | undefined> {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      return (await db.query<DealsRecord>({ ...statements.find, values: [id] })).rows[0];
    },

    async create(input: DealsInput): Promise<DealsRecord> {
      const values: StoredValues = [
        input.contact_id,
        input.title,
        input.amount,
        storedDateTime(input.closes_at),
        input.notes ?? null,
      ];
      try {
        return (await db.query<DealsRecord>({ ...statements.insert, values })).rows[0]!;
      } catch (error) {
        throw await writeFailure(db, error, input, references);
      }
    },

    async update(rawId: string, changes: Partial<DealsInput>): Promise<DealsRecord | undefined> {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      const values: StoredValues = [
        id,
        "contact_id" in changes,
        changes.contact_id ?? null,
        "title" in changes,
        changes.title ?? null,
        "amount" in changes,
        changes.amount ?? null,
        "closes_at" in changes,
        storedDateTime(changes.closes_at),
        "notes" in changes,
        changes.notes ?? null,
      ];
      try {
        return (await db.query<DealsRecord>({ ...statements.update, values })).rows[0];
      } catch (error) {
        throw await writeFailure(db, error, changes, references);
      }
    },

    async remove(rawId: string): Promise<boolean> {
      const id = numberId(rawId);
      if (id === undefined) return false;
      try {
        return (await db.query({ ...statements.remove, values: [id] })).rowCount! > 0;
      } catch (error) {
        throw await deleteFailure(db, error, id, referrers);
      }
    },
  };
}

export type DealsTable = ReturnType<typeof dealsTable>;
