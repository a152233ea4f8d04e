import { createHash } from "node:crypto";
import type { Table } from "./types.ts";

/** Longest name PostgreSQL keeps for an index. */
const MAX_NAME = 63;

export interface Index {
  fields: string[];
  /** Its name in the database: Prisma's `<table>_<fields>_idx`, or, when that is too long, cut and made unique by a hash. */
  name: string;
  /** Whether the name is not Prisma's own, so the schema must give it (`map:`). */
  mapped: boolean;
}

/** A table's non-unique indexes: each indexed field on its own, then the composite ones. */
export function tableIndexes(table: Table): Index[] {
  const lists = [...table.fields.filter((field) => field.index).map((field) => [field.name]), ...table.indexes];
  return lists.map((fields) => ({ fields, ...indexName(table.name, fields) }));
}

/** The name of an index of a table on these fields. */
export function indexName(table: string, fields: readonly string[]): Omit<Index, "fields"> {
  const name = `${table}_${fields.join("_")}_idx`;
  if (name.length <= MAX_NAME) return { name, mapped: false };
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return { name: `${name.slice(0, MAX_NAME - 13)}_${hash}_idx`, mapped: true };
}
