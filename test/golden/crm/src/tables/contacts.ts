import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { numberId } from "../http/ids.js";
import type { ContactsInput, ContactsRecord } from "../schemas/contacts.js";

const COLUMNS = `"id", "company_id", "full_name", "email", "phone", "vip"`;

/** The contacts table's statements, prepared by each pooled connection on first use. */
export function contactsTable(db: Db) {
  const statements = {
    list: { name: "contacts.list", text: `SELECT ${COLUMNS} FROM "contacts" ORDER BY "id"` },
    find: { name: "contacts.find", text: `SELECT ${COLUMNS} FROM "contacts" WHERE "id" = $1` },
    insert: {
      name: "contacts.insert",
      text: `INSERT INTO "contacts" ("company_id", "full_name", "email", "phone", "vip") VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    },
    update: {
      name: "contacts.update",
      text: `UPDATE "contacts" SET "company_id" = CASE WHEN $2 THEN $3 ELSE "company_id" END, "full_name" = CASE WHEN $4 THEN $5 ELSE "full_name" END, "email" = CASE WHEN $6 THEN $7 ELSE "email" END, "phone" = CASE WHEN $8 THEN $9 ELSE "phone" END, "vip" = CASE WHEN $10 THEN $11 ELSE "vip" END WHERE "id" = $1 RETURNING ${COLUMNS}`,
    },
    remove: { name: "contacts.remove", text: `DELETE FROM "contacts" WHERE "id" = $1` },
  };
  const references: ReferenceCheck[] = [
    {
      field: "company_id",
      table: "companies",
      exists: { name: "companies.exists", text: `SELECT 1 FROM "companies" WHERE "id" = $1` },
    },
  ];
  const referrers: ReferrerCheck[] = [
    {
      table: "deals",
      holds: { name: "deals.contact_id.holds", text: `SELECT 1 FROM "deals" WHERE "contact_id" = $1 LIMIT 1` },
    },
  ];

  return {
    async list(): Promise<ContactsRecord[]> {
      return (await db.query<ContactsRecord>(statements.list)).rows;
    },

    async find(rawId: string): Promise<ContactsRecord | undefined> {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      return (await db.query<ContactsRecord>({ ...statements.find, values: [id] })).rows[0];
    },

    async create(input: ContactsInput): Promise<ContactsRecord> {
      const values: StoredValues = [
        input.company_id,
        input.full_name,
        input.email ?? null,
        input.phone ?? null,
        input.vip === undefined ? false : input.vip,
      ];
      try {
        return (await db.query<ContactsRecord>({ ...statements.insert, values })).rows[0]!;
      } catch (error) {
        throw await writeFailure(db, error, input, references);
      }
    },

    async update(rawId: string, changes: Partial<ContactsInput>): Promise<ContactsRecord | undefined> {
      const id = numberId(rawId);
      if (id === undefined) return undefined;
      const values: StoredValues = [
        id,
        "company_id" in changes,
        changes.company_id ?? null,
        "full_name" in changes,
        changes.full_name ?? null,
        "email" in changes,
        changes.email ?? null,
        "phone" in changes,
        changes.phone ?? null,
        "vip" in changes,
        changes.vip ?? null,
      ];
      try {
        return (await db.query<ContactsRecord>({ ...statements.update, values })).rows[0];
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

export type ContactsTable = ReturnType<typeof contactsTable>;
