import { isDeepStrictEqual } from "node:util";
import { versionLabels, type RawField, type RawManifest } from "../manifest/schema.ts";

/** A difference between two manifests, for a person reviewing a draft: what it adds, removes or changes. */
export interface ManifestChange {
  kind: "added" | "removed" | "changed";
  /** `table posts`, `field posts.title`, `query recent`, `versions`… */
  what: string;
}

/** What `after` adds, removes and changes of `before`: tables, their fields and options, queries, versions. */
export function manifestChanges(before: RawManifest | undefined, after: RawManifest): ManifestChange[] {
  const changes: ManifestChange[] = [];
  const add = (kind: ManifestChange["kind"], what: string) => changes.push({ kind, what });
  if (before && before.project !== after.project) add("changed", `project: ${before.project} → ${after.project}`);
  const database = (manifest: RawManifest) => manifest.database ?? "sqlite";
  if (before && database(before) !== database(after))
    add("changed", `database: ${database(before)} → ${database(after)}`);
  if (before && !isDeepStrictEqual(versionLabels(before.versions), versionLabels(after.versions)))
    add("changed", `versions: ${versionLabels(after.versions).join(", ")}`);

  const tablesBefore = before?.tables ?? {};
  for (const [name, table] of Object.entries(after.tables)) {
    const old = tablesBefore[name];
    if (!old) {
      add("added", `table ${name} (${Object.keys(table.fields).join(", ") || "no fields"})`);
      continue;
    }
    const { fields: _fields, ...options } = table;
    const { fields: _oldFields, ...oldOptions } = old;
    if (!isDeepStrictEqual(options, oldOptions)) add("changed", `table ${name}: ${changedKeys(oldOptions, options)}`);
    for (const [fieldName, field] of Object.entries(table.fields)) {
      const was = old.fields[fieldName];
      if (was === undefined) add("added", `field ${name}.${fieldName}: ${describe(field)}`);
      else if (!isDeepStrictEqual(full(was), full(field)))
        add("changed", `field ${name}.${fieldName}: ${describe(was)} → ${describe(field)}`);
    }
    for (const fieldName of Object.keys(old.fields))
      if (!(fieldName in table.fields)) add("removed", `field ${name}.${fieldName}`);
  }
  for (const name of Object.keys(tablesBefore)) if (!(name in after.tables)) add("removed", `table ${name}`);

  const queriesBefore = before?.queries ?? {};
  const queriesAfter = after.queries ?? {};
  for (const [name, query] of Object.entries(queriesAfter)) {
    const old = queriesBefore[name];
    if (!old) add("added", `query ${name}`);
    else if (!isDeepStrictEqual(old, query)) add("changed", `query ${name}: ${changedKeys(old, query)}`);
  }
  for (const name of Object.keys(queriesBefore)) if (!(name in queriesAfter)) add("removed", `query ${name}`);
  return changes;
}

function full(field: RawField): object {
  return typeof field === "string" ? { type: field } : field;
}

/** A field's type and options, one line: `TEXT, required, unique, maxLength 80`. */
function describe(field: RawField): string {
  if (typeof field === "string") return field;
  const { type, references, ...options } = field;
  const parts = [references ? `${type} → ${references}` : type];
  for (const [key, value] of Object.entries(options)) {
    if (value === true) parts.push(key);
    else if (value !== false && value !== undefined) parts.push(`${key} ${JSON.stringify(value)}`);
  }
  return parts.join(", ");
}

function changedKeys(before: object, after: object): string {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((key) => !isDeepStrictEqual(before[key as keyof typeof before], after[key as keyof typeof after]))
    .join(", ");
}
