import Database from "better-sqlite3";
import { Failure, invalid, Referenced, type Referrer } from "./http/errors.js";

/** A reference field and a statement telling whether the record it names exists. */
export interface ReferenceCheck {
  field: string;
  table: string;
  exists: Database.Statement<[unknown]>;
}

/**
 * A reference that can refuse a delete (`onDelete: restrict`, to the record or to one its cascades
 * would delete) and a statement telling whether it holds a given id. `table` is how the refusal
 * names it: `loans`, or `comments (through posts)`; `versions`, when some versions of the table
 * lack a table it names, those that may.
 */
export interface ReferrerCheck extends Referrer {
  holds: Database.Statement<[unknown]>;
}

/**
 * Translates a constraint error of an insert or update into the contract's answer. SQLite does not
 * say which reference failed, so after a foreign-key error the references given are looked up.
 */
export function writeFailure(error: unknown, values: object, references: ReferenceCheck[]): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  if (error.code === "SQLITE_CONSTRAINT_UNIQUE") {
    const column = error.message.slice(error.message.lastIndexOf(".") + 1);
    return new Failure(409, `Invalid request: ${column} already exists`);
  }
  if (error.code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    const given = values as Record<string, unknown>;
    const missing = references.filter(
      ({ field, exists }) => given[field] != null && exists.get(given[field]) === undefined,
    );
    if (missing.length > 0) return invalid(missing.map(({ field, table }) => `${field} refers to no ${table} record`));
  }
  return error;
}

/** SQLite reports ON DELETE RESTRICT as a trigger constraint, and a deferred check as a foreign key. */
const DELETE_REFUSALS = new Set(["SQLITE_CONSTRAINT_TRIGGER", "SQLITE_CONSTRAINT_FOREIGNKEY"]);

/**
 * Translates the foreign-key error of a restricted delete into 409, naming the restricting references
 * that hold the record (never those that would cascade or be set to null).
 */
export function deleteFailure(error: unknown, id: unknown, referrers: ReferrerCheck[]): unknown {
  if (!(error instanceof Database.SqliteError) || !DELETE_REFUSALS.has(error.code)) return error;
  const holding: ReferrerCheck[] = [];
  for (const referrer of referrers) {
    if (holding.some(({ table }) => table === referrer.table)) continue;
    if (referrer.holds.get(id) !== undefined) holding.push(referrer);
  }
  return new Referenced(holding);
}
