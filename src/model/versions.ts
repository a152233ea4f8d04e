import type { Field, Model, Table } from "./types.ts";

/** A field as one API version has it: `name` is its name there, `column` the one it is stored under. */
export interface VersionField extends Field {
  column: string;
  /** Whether the stored column refuses null (records answer it as such, whatever a version's create asks). */
  stored: { required: boolean };
}

/** A table as one API version answers and accepts it: the fields it has, under their names there. */
export interface TableVersion extends Omit<Table, "fields"> {
  version: string;
  fields: VersionField[];
}

/**
 * Each table's versions, made once: the emitters ask for the same table in the same version many
 * times (its schemas, routes, documents, README), and a large project's copies of its fields were
 * a tenth of its generation. The model is not changed once built, so neither is a version of it.
 */
const versionsOf = new WeakMap<Table, Map<string, TableVersion>>();

/** The table in a version: its fields that version has, named and required as that version has them. */
export function tableInVersion(table: Table, version: string): TableVersion {
  let versions = versionsOf.get(table);
  if (versions === undefined) versionsOf.set(table, (versions = new Map()));
  let view = versions.get(version);
  if (view === undefined) versions.set(version, (view = madeInVersion(table, version)));
  return view;
}

function madeInVersion(table: Table, version: string): TableVersion {
  return {
    ...table,
    version,
    fields: table.fields
      .filter((field) => field.versions === undefined || field.versions.includes(version))
      .map((field) => {
        const rule = field.inVersions?.[version];
        const fieldDefault = rule?.default ?? field.default;
        return {
          ...field,
          name: field.names?.[version] ?? field.name,
          column: field.name,
          stored: { required: field.required },
          required: rule?.required ?? field.required,
          ...(fieldDefault !== undefined && { default: fieldDefault }),
        };
      }),
  };
}

/** Whether a version has the table exactly as it is stored: every field, under its own name, as required. */
export function isStoredShape(table: Table, version: string): boolean {
  return table.fields.every(
    (field) =>
      (field.versions === undefined || field.versions.includes(version)) &&
      field.names?.[version] === undefined &&
      field.inVersions?.[version] === undefined,
  );
}

/** Whether some version of the table differs from how it is stored. */
export function hasVersionedFields(table: Table): boolean {
  return table.versions.some((version) => !isStoredShape(table, version));
}

/** The instant a manifest's date (YYYY-MM-DD) starts, in UTC: when a version is deprecated, or gone at its sunset. */
export function startOfDay(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

/** The versions whose sunset has passed at `now`: every request to them is answered 410 Gone. */
export function pastSunsets(model: Model, now: number): { version: string; sunset: string }[] {
  return Object.entries(model.deprecated).flatMap(([version, { sunset }]) =>
    sunset !== undefined && startOfDay(sunset).getTime() <= now ? [{ version, sunset }] : [],
  );
}

/** The message of the 410 Gone a version answers from its sunset on. */
export function goneMessage(version: string, sunset: string): string {
  return `Version ${version} was sunset on ${sunset}`;
}
