import type { RawManifest } from "../manifest/schema.ts";
import { buildModel } from "../model/build.ts";
import type { Field, Model, Table } from "../model/types.ts";

/** A rename the migration performs itself, so that values survive (Prisma would drop and add). */
export type Rename =
  { kind: "table"; from: string; to: string } | { kind: "field"; table: string; from: string; to: string };

/** A change that can lose data, with what is needed to count the rows it affects. */
export type Risk =
  | { kind: "table-removed"; table: string }
  | { kind: "field-removed"; table: string; field: string }
  | { kind: "type-changed"; table: string; field: string; from: string; to: string }
  | { kind: "narrowed"; table: string; field: string; from: number | undefined; to: number }
  | { kind: "made-unique"; table: string; field: string }
  | { kind: "made-required"; table: string; field: string };

export interface MigrationPlan {
  /** The previous model with this change's renames applied: the schema Prisma diffs from (no tables at first). */
  renamedPrevious: Model;
  renames: Rename[];
  risks: Risk[];
  /** Changes that cannot be migrated as written (a new required field without a default). */
  problems: string[];
  /** One line per change, for the summary and the default migration label. */
  changes: string[];
  /**
   * Fields made required that have a default: the migration first sets their nulls to it (SQLite's
   * table rebuild would, PostgreSQL's `SET NOT NULL` would fail on them).
   */
  fills: { table: string; field: Field }[];
}

/**
 * The changes a server still running the code before them may fail on until it is restarted:
 * every change but additions (its statements name its own columns, and a new column is filled by
 * its default or left null).
 */
export function changesOldServersMayFailOn(changes: string[]): string[] {
  return changes.filter((change) => !/: (table added|field added|index on .+ (added|removed))$/.test(change));
}

/**
 * What a manifest change does to the database: renames, risks to data, and what is refused.
 * `previous` is the (validated) manifest of the latest migration, `next` the manifest now and its model.
 */
export function planMigration(
  previous: RawManifest | undefined,
  next: { manifest: RawManifest; model: Model },
): MigrationPlan {
  const renamedManifest = structuredClone(previous ?? { ...next.manifest, tables: {} });
  const renames = applyRenames(renamedManifest, next.manifest);
  const before = buildModel(renamedManifest);
  const after = next.model;
  const plan: MigrationPlan = { renamedPrevious: before, renames, risks: [], problems: [], changes: [], fills: [] };
  for (const rename of renames) {
    plan.changes.push(
      rename.kind === "table"
        ? `${rename.from}: table renamed to ${rename.to}`
        : `${rename.table}.${rename.from}: field renamed to ${rename.to}`,
    );
  }
  compareTables(before, after, plan);
  return plan;
}

/** Renames tables and fields of `previous` in place as `next` asks with renamedFrom. */
function applyRenames(previous: RawManifest, next: RawManifest): Rename[] {
  const renames: Rename[] = [];
  for (const [name, table] of Object.entries(next.tables)) {
    const from = table.renamedFrom;
    if (from && !(name in previous.tables) && from in previous.tables) {
      previous.tables = renameKey(previous.tables, from, name);
      for (const other of Object.values(previous.tables)) {
        for (const [fieldName, field] of Object.entries(other.fields)) {
          if (typeof field !== "string" && field.references === from)
            other.fields[fieldName] = { ...field, references: name };
        }
      }
      renames.push({ kind: "table", from, to: name });
    }
  }
  for (const [tableName, table] of Object.entries(next.tables)) {
    const old = previous.tables[tableName];
    if (!old) continue;
    for (const [name, field] of Object.entries(table.fields)) {
      const from = typeof field === "string" ? undefined : field.renamedFrom;
      if (from && !(name in old.fields) && from in old.fields) {
        old.fields = renameKey(old.fields, from, name);
        if (old.indexes)
          old.indexes = old.indexes.map((index) => index.map((field) => (field === from ? name : field)));
        renames.push({ kind: "field", table: tableName, from, to: name });
      }
    }
  }
  return renames;
}

function renameKey<T>(record: Record<string, T>, from: string, to: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key === from ? to : key, value]));
}

function compareTables(before: Model, after: Model, plan: MigrationPlan): void {
  const previous = new Map(before.tables.map((table) => [table.name, table]));
  const current = new Set(after.tables.map((table) => table.name));
  for (const table of after.tables) {
    const old = previous.get(table.name);
    if (!old) plan.changes.push(`${table.name}: table added`);
    else compareFields(old, table, plan);
  }
  for (const table of before.tables) {
    if (current.has(table.name)) continue;
    plan.changes.push(`${table.name}: table removed`);
    plan.risks.push({ kind: "table-removed", table: table.name });
  }
}

function compareFields(before: Table, after: Table, plan: MigrationPlan): void {
  const previous = new Map(before.fields.map((field) => [field.name, field]));
  const at = (field: Field) => `${after.name}.${field.name}`;
  if (before.id !== after.id) {
    plan.changes.push(`${after.name}.id: type changed`);
    plan.risks.push({ kind: "type-changed", table: after.name, field: "id", from: before.id, to: after.id });
  }
  for (const field of after.fields) {
    const old = previous.get(field.name);
    if (!old) {
      plan.changes.push(`${at(field)}: field added`);
      if (field.required && field.default === undefined) {
        plan.problems.push(
          `tables.${after.name}.fields.${field.name}: a new required field needs a default, so that the table's existing rows get a value`,
        );
      }
      continue;
    }
    const changed = (what: string) => plan.changes.push(`${at(field)}: ${what}`);
    if (old.prismaType !== field.prismaType || old.kind !== field.kind) {
      changed("type changed");
      plan.risks.push({
        kind: "type-changed",
        table: after.name,
        field: field.name,
        from: describeType(old),
        to: describeType(field),
      });
    }
    // Only text to text: a number or boolean has no maxLength to narrow or widen (a type change covers it).
    const text = old.kind === "text" && field.kind === "text";
    if (text && field.maxLength !== undefined && (old.maxLength === undefined || old.maxLength > field.maxLength)) {
      changed("maxLength narrowed");
      plan.risks.push({
        kind: "narrowed",
        table: after.name,
        field: field.name,
        from: old.maxLength,
        to: field.maxLength,
      });
    } else if (text && old.maxLength !== field.maxLength) changed("maxLength widened");
    if (field.unique && !old.unique) {
      changed("made unique");
      plan.risks.push({ kind: "made-unique", table: after.name, field: field.name });
    }
    if (field.required && !old.required) {
      if (field.default === undefined) {
        changed("made required");
        plan.risks.push({ kind: "made-required", table: after.name, field: field.name });
      } else {
        changed("made required, nulls set to the default");
        plan.fills.push({ table: after.name, field });
      }
    }
    if (JSON.stringify(old.default) !== JSON.stringify(field.default))
      changed(`default ${!old.default ? "added" : !field.default ? "removed" : "changed"}`);
    if (JSON.stringify(old.relation?.table) !== JSON.stringify(field.relation?.table)) changed("reference changed");
    if (field.index !== old.index) changed(field.index ? "index added" : "index removed");
  }
  const composite = (table: Table) => new Set(table.indexes.map((fields) => fields.join(", ")));
  const [was, is] = [composite(before), composite(after)];
  for (const fields of is) if (!was.has(fields)) plan.changes.push(`${after.name}: index on ${fields} added`);
  for (const fields of was) if (!is.has(fields)) plan.changes.push(`${after.name}: index on ${fields} removed`);
  for (const field of before.fields) {
    if (after.fields.some((candidate) => candidate.name === field.name)) continue;
    plan.changes.push(`${before.name}.${field.name}: field removed`);
    plan.risks.push({ kind: "field-removed", table: after.name, field: field.name });
  }
}

function describeType(field: Field): string {
  return field.kind === "integer" || field.kind === "uuid" || field.kind === "bigint"
    ? `${field.type} (${field.kind})`
    : field.type;
}
