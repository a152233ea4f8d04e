import type { Database } from "../manifest/schema.ts";
import { postgresql } from "./postgresql.ts";
import { sqlite } from "./sqlite.ts";
import type { Target } from "./target.ts";

export type { Target };

const TARGETS: Record<Database, Target> = { sqlite, postgresql };

/** The target object of a database: every SQLite/PostgreSQL difference is one of its members. */
export function targetFor(database: Database): Target {
  return TARGETS[database];
}
