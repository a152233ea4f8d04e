import pg from "pg";
import type { Db, Named } from "./db.js";
import { Failure, invalid, Referenced, type Referrer } from "./http/errors.js";

/** A reference field and a statement telling whether the record it names exists. */
export interface ReferenceCheck {
  field: string;
  table: string;
  exists: Named;
}

/**
 * A reference that can refuse a delete (`onDelete: restrict`, to the record or to one its cascades
 * would delete) and a statement telling whether it holds a given id. `table` is how the refusal
 * names it: `loans`, or `comments (through posts)`; `versions`, when some versions of the table
 * lack a table it names, those that may.
 */
export interface ReferrerCheck extends Referrer {
  holds: Named;
}

const UNIQUE_VIOLATION = "23505";
const FOREIGN_KEY_VIOLATION = "23503";

/** Translates a constraint error of an insert or update into the contract's answer. */
export async function writeFailure(
  db: Db,
  error: unknown,
  values: object,
  references: ReferenceCheck[],
): Promise<unknown> {
  if (!(error instanceof pg.DatabaseError)) return error;
  if (error.code === UNIQUE_VIOLATION) {
    const column = /^Key \("?([^")]+)"?\)=/.exec(error.detail ?? "")?.[1];
    return new Failure(409, `Invalid request: ${column} already exists`);
  }
  if (error.code === FOREIGN_KEY_VIOLATION) {
    // PostgreSQL names the first failing reference; look them all up to report every one.
    const given = values as Record<string, unknown>;
    const missing: string[] = [];
    for (const { field, table, exists } of references) {
      if (given[field] != null && (await db.query(exists([given[field]]))).rowCount === 0) {
        missing.push(`${field} refers to no ${table} record`);
      }
    }
    if (missing.length > 0) return invalid(missing);
    // Each referenced record exists now: one was created just after the write. The write saw it missing.
    const [, field, table] =
      /^Key \("?([^")]+)"?\)=\(.*\) is not present in table "([^"]+)"/s.exec(error.detail ?? "") ?? [];
    if (field && table) return invalid([`${field} refers to no ${table} record`]);
  }
  return error;
}

/**
 * Translates the foreign-key error of a restricted delete into 409, naming the restricting references
 * that hold the record (never those that would cascade or be set to null).
 */
export async function deleteFailure(db: Db, error: unknown, id: unknown, referrers: ReferrerCheck[]): Promise<unknown> {
  if (!(error instanceof pg.DatabaseError) || error.code !== FOREIGN_KEY_VIOLATION) return error;
  const holding: ReferrerCheck[] = [];
  for (const referrer of referrers) {
    if (holding.some(({ table }) => table === referrer.table)) continue;
    if ((await db.query(referrer.holds([id]))).rowCount! > 0) holding.push(referrer);
  }
  return new Referenced(holding);
}
