import { randomUUID } from "node:crypto";
import { deleteFailure, writeFailure, type ReferenceCheck, type ReferrerCheck } from "../constraints.js";
import type { Db, StoredValues } from "../db.js";
import { uuidId } from "../http/ids.js";
import type { CompaniesInput, CompaniesRecord } from "../schemas/companies.js";
import { storedDateTime, storedNow } from "../values.js";

const COLUMNS = `"id", "name", "website", "created_at"`;

/** The companies table's statements, prepared by each pooled connection on first use. */
export function companiesTable(db: Db) {
  const statements = {
    list: { name: "companies.list", text: `SELECT ${COLUMNS} FROM "companies" ORDER BY "id"` },
    find: { name: "companies.find", text: `SELECT ${COLUMNS} FROM "companies" WHERE "id" = $1` },
    insert: {
      name: "companies.insert",
      text: `INSERT INTO "companies" ("id", "name", "website", "created_at") VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    },
    update: {
      name: "companies.update",
      text: `UPDATE "companies" SET "name" = CASE WHEN $2 THEN $3 ELSE "name" END, "website" = CASE WHEN $4 THEN $5 ELSE "website" END, "created_at" = CASE WHEN $6 THEN $7 ELSE "created_at" END WHERE "id" = $1 RETURNING ${COLUMNS}`,
    },
    remove: { name: "companies.remove", text: `DELETE FROM "companies" WHERE "id" = $1` },
  };
  const references: ReferenceCheck[] = [];
  const referrers: ReferrerCheck[] = [
    {
      table: "contacts",
      holds: { name: "contacts.company_id.holds", text: `SELECT 1 FROM "contacts" WHERE "company_id" = $1 LIMIT 1` },
    },
  ];

  return {
    async list(): Promise<CompaniesRecord[]> {
      return (await db.query<CompaniesRecord>(statements.list)).rows;
    },

    async find(rawId: string): Promise<CompaniesRecord | undefined> {
      const id = uuidId(rawId);
      if (id === undefined) return undefined;
      return (await db.query<CompaniesRecord>({ ...statements.find, values: [id] })).rows[0];
    },

    async create(input: CompaniesInput): Promise<CompaniesRecord> {
      const values: StoredValues = [
        randomUUID(),
        input.name,
        input.website ?? null,
        input.created_at === undefined ? storedNow() : storedDateTime(input.created_at),
      ];
      try {
        return (await db.query<CompaniesRecord>({ ...statements.insert, values })).rows[0]!;
      } catch (error) {
        throw await writeFailure(db, error, input, references);
      }
    },

    async update(rawId: string, changes: Partial<CompaniesInput>): Promise<CompaniesRecord | undefined> {
      const id = uuidId(rawId);
      if (id === undefined) return undefined;
      const values: StoredValues = [
        id,
        "name" in changes,
        changes.name ?? null,
        "website" in changes,
        changes.website ?? null,
        "created_at" in changes,
        storedDateTime(changes.created_at),
      ];
      try {
        return (await db.query<CompaniesRecord>({ ...statements.update, values })).rows[0];
      } catch (error) {
        throw await writeFailure(db, error, changes, references);
      }
    },

    async remove(rawId: string): Promise<boolean> {
      const id = uuidId(rawId);
      if (id === undefined) return false;
      try {
        return (await db.query({ ...statements.remove, values: [id] })).rowCount! > 0;
      } catch (error) {
        throw await deleteFailure(db, error, id, referrers);
      }
    },
  };
}

export type CompaniesTable = ReturnType<typeof companiesTable>;
