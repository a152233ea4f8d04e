import type { Model, Table } from "./types.ts";
import { tableInVersion } from "./versions.ts";

/**
 * A relation a table's records can embed with `expand`: the record a reference field names
 * ("one", under the field's name without `_id`, or `as:`), or the records of another table that
 * refer to it ("many", under that table's name, or `reverse:` on their reference field).
 */
export interface Expansion {
  name: string;
  kind: "one" | "many";
  /** The table whose records are embedded. */
  table: string;
  /** The reference field, as stored: of the expanding table for "one", of `table` for "many". */
  field: string;
}

/** How deep `expand` may nest (`comments.post.user`). */
export const MAX_EXPAND_DEPTH = 3;

/** How many referring records a "many" relation embeds per record, in id order. */
export const MAX_EXPANDED_MANY = 100;

/** A forward relation's name when the manifest gives none: the field's name without `_id`, if it ends so. */
export function defaultForwardName(field: string): string | undefined {
  return field.endsWith("_id") && field.length > 3 ? field.slice(0, -3) : undefined;
}

/** The names a table's fields take in any version, and `id`: what no relation of it may be called. */
export function fieldNamesOf(table: Table): Set<string> {
  const names = new Set(["id"]);
  for (const field of table.fields) {
    names.add(field.name);
    for (const name of Object.values(field.names ?? {})) names.add(name);
  }
  return names;
}

/**
 * Every relation each table can expand, by table. Names the manifest gives (`as:`, `reverse:`) are
 * unique (the validator sees to it); a default name is dropped when a field or a named relation has
 * it, or when two relations would both take it (two references from one table to another: name
 * them with `reverse:`), so no name ever means two things.
 */
export function tableExpansions(model: Model): Map<string, Expansion[]> {
  const named = new Map<string, Expansion[]>();
  const defaults = new Map<string, Expansion[]>();
  const add = (into: Map<string, Expansion[]>, table: string, expansion: Expansion) => {
    const list = into.get(table) ?? [];
    list.push(expansion);
    into.set(table, list);
  };
  for (const table of model.tables) {
    for (const field of table.fields) {
      const relation = field.relation;
      if (!relation) continue;
      const forward = { kind: "one", table: relation.table, field: field.name } as const;
      if (relation.as !== undefined) add(named, table.name, { name: relation.as, ...forward });
      else {
        const name = defaultForwardName(field.name);
        if (name !== undefined) add(defaults, table.name, { name, ...forward });
      }
      const reverse = { kind: "many", table: table.name, field: field.name } as const;
      add(relation.reverse !== undefined ? named : defaults, relation.table, {
        name: relation.reverse ?? table.name,
        ...reverse,
      });
    }
  }
  const result = new Map<string, Expansion[]>();
  for (const table of model.tables) {
    const taken = fieldNamesOf(table);
    const own = named.get(table.name) ?? [];
    for (const { name } of own) taken.add(name);
    const candidates = (defaults.get(table.name) ?? []).filter(({ name }) => !taken.has(name));
    const counts = new Map<string, number>();
    for (const { name } of candidates) counts.set(name, (counts.get(name) ?? 0) + 1);
    const kept = candidates.filter(({ name }) => counts.get(name) === 1);
    // In the order of the manifest: forward relations first (the table's own fields), then reverse ones.
    const all = [...own, ...kept];
    result.set(table.name, [
      ...all.filter((expansion) => expansion.kind === "one"),
      ...all.filter((expansion) => expansion.kind === "many"),
    ]);
  }
  return result;
}

/** A relation as a version has it: `key` is the name its reference field has in that version's API. */
export interface VersionExpansion extends Expansion {
  key: string;
}

/**
 * The relations of each table a version can expand: those whose tables the version serves and whose
 * reference field it has (a field hidden from the version hides its relations too).
 */
export function versionExpansions(model: Model): (table: Table, version: string) => VersionExpansion[] {
  const tables = new Map(model.tables.map((candidate) => [candidate.name, candidate]));
  const expansions = tableExpansions(model);
  return (table, version) =>
    (expansions.get(table.name) ?? []).flatMap((expansion) => {
      const other = tables.get(expansion.table);
      if (!other || !other.versions.includes(version) || !table.versions.includes(version)) return [];
      // The tables as stored (the caller's may be a version's already, its fields renamed).
      const holder = expansion.kind === "one" ? tables.get(table.name)! : other;
      const field = tableInVersion(holder, version).fields.find((candidate) => candidate.column === expansion.field);
      return field ? [{ ...expansion, key: field.name }] : [];
    });
}
