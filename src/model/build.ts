import { pascalCase } from "../manifest/names.ts";
import {
  DEFAULT_MAX_LENGTH,
  versionLabels,
  type FieldType,
  type RawFieldObject,
  type RawManifest,
  type RawVersionRule,
} from "../manifest/schema.ts";
import type {
  Deprecation,
  Field,
  FieldDefault,
  Model,
  PrismaScalar,
  Query,
  QueryColumn,
  Reference,
  Relation,
  Table,
  ValueKind,
  VersionRule,
} from "./types.ts";

export { DEFAULT_MAX_LENGTH };

const PRISMA_TYPES: Record<ValueKind, PrismaScalar> = {
  float: "Float",
  integer: "Int",
  uuid: "String",
  bigint: "BigInt",
  text: "String",
  boolean: "Boolean",
  datetime: "DateTime",
};

/** Turns a validated manifest into the model the emitters read. */
export function buildModel(manifest: RawManifest): Model {
  const versions = versionLabels(manifest.versions);
  const rawTables = Object.entries(manifest.tables);
  const idKinds = new Map(rawTables.map(([name, table]) => [name, table.id ?? "number"]));
  /** What each reference field names, until its relation is resolved. */
  const references = new Map<Field, Pick<RawFieldObject, "references" | "onDelete" | "as" | "reverse">>();

  const tables: Table[] = rawTables.map(([name, table]) => ({
    name,
    modelName: pascalCase(name),
    ...(table.renamedFrom !== undefined && { renamedFrom: table.renamedFrom }),
    ...described(table.description),
    id: table.id ?? "number",
    versions: table.versions ?? versions,
    fields: Object.entries(table.fields).map(([fieldName, raw]) => {
      const spec = typeof raw === "string" ? { type: raw } : raw;
      const field = buildField(fieldName, spec, idKinds);
      if (spec.references !== undefined) references.set(field, spec);
      return field;
    }),
    indexes: table.indexes ?? [],
    referencedBy: [],
  }));

  nameRelations(tables, references);

  const queries: Query[] = Object.entries(manifest.queries ?? {}).map(([name, query]) => ({
    name,
    ...described(query.description),
    versions: query.versions ?? versions,
    params: Object.entries(query.params ?? {}).map(([paramName, type]) => ({
      name: paramName,
      type,
      kind: valueKind(type, false),
    })),
    // Without the trailing semicolons, so that the statement can be prepared on its own.
    sql: query.sql.trim().replace(/[\s;]+$/, ""),
  }));

  return {
    project: manifest.project,
    database: manifest.database ?? "sqlite",
    versions,
    deprecated: deprecations(manifest.versions),
    tables,
    queries,
  };
}

/** The deprecated versions of the map form of `versions`. */
function deprecations(versions: RawManifest["versions"]): Record<string, Deprecation> {
  if (versions === undefined || Array.isArray(versions)) return {};
  const deprecated: Record<string, Deprecation> = {};
  for (const [label, policy] of Object.entries(versions)) {
    if (!policy.deprecated) continue;
    deprecated[label] = {
      ...(typeof policy.deprecated === "string" && { since: policy.deprecated }),
      ...(policy.sunset !== undefined && { sunset: policy.sunset }),
    };
  }
  return deprecated;
}

function buildField(name: string, spec: RawFieldObject, idKinds: Map<string, string>): Field {
  // A reference holds what the referenced table's id is: a uuid, a bigint, or a 32-bit integer.
  const referencedId = spec.references === undefined ? undefined : idKinds.get(spec.references);
  const kind =
    referencedId === "uuid" || referencedId === "bigint"
      ? referencedId
      : valueKind(spec.type, spec.integer === true || spec.references !== undefined);
  const maxLength = spec.maxLength ?? DEFAULT_MAX_LENGTH[spec.type];
  return {
    name,
    type: spec.type,
    kind,
    prismaType: PRISMA_TYPES[kind],
    required: spec.required === true,
    unique: spec.unique === true,
    index: spec.unique !== true && (spec.index === true || spec.references !== undefined),
    ...(spec.default !== undefined && { default: fieldDefault(spec.default) }),
    ...(maxLength !== undefined && { maxLength }),
    ...(spec.renamedFrom !== undefined && { renamedFrom: spec.renamedFrom }),
    ...described(spec.description),
    ...(spec.example !== undefined && { example: spec.example }),
    ...(spec.versions !== undefined && { versions: spec.versions }),
    ...(spec.names !== undefined && Object.keys(spec.names).length > 0 && { names: spec.names }),
    ...(spec.inVersions !== undefined && { inVersions: versionRules(spec.inVersions) }),
  };
}

function versionRules(rules: Record<string, RawVersionRule>): Record<string, VersionRule> {
  return Object.fromEntries(
    Object.entries(rules).map(([version, rule]) => [
      version,
      {
        ...(rule.required !== undefined && { required: rule.required }),
        ...(rule.default !== undefined && { default: fieldDefault(rule.default) }),
      },
    ]),
  );
}

/** A description, trimmed; none when the manifest gives none or only blanks. */
function described(description: string | undefined): { description?: string } {
  const text = description?.trim();
  return text ? { description: text } : {};
}

function fieldDefault(value: string | number | boolean): FieldDefault {
  return value === "now" ? { kind: "now" } : { kind: "value", value };
}

function valueKind(type: FieldType, integer: boolean): ValueKind {
  switch (type) {
    case "NUMBER":
      return integer ? "integer" : "float";
    case "BOOLEAN":
      return "boolean";
    case "DATETIME":
      return "datetime";
    default:
      return "text";
  }
}

/**
 * Gives every reference its Prisma relation fields. A relation field is named after the column
 * without its `_id` suffix (`user_id` → `user`); the back-relation after the referring table, or
 * `<table>_by_<field>` when that table refers to the same table more than once. Names that would
 * collide are made unique. Prisma needs a name for every relation between a pair of models joined
 * more than once (in either direction) and for a self-relation.
 */
function nameRelations(
  tables: Table[],
  references: Map<Field, Pick<RawFieldObject, "references" | "onDelete" | "as" | "reverse">>,
): void {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const taken = new Map(
    tables.map((table) => [table.name, new Set(["id", ...table.fields.map((field) => field.name)])]),
  );
  const directed = (from: string, to: string) => `${from}>${to}`;
  const pair = (a: string, b: string) => (a < b ? `${a}<>${b}` : `${b}<>${a}`);
  const counts = new Map<string, number>();
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const referring = tables.flatMap((table) =>
    table.fields.flatMap((field) => {
      const spec = references.get(field);
      return spec?.references === undefined ? [] : [{ table, field, spec, target: byName.get(spec.references)! }];
    }),
  );
  for (const { table, target } of referring) {
    count(directed(table.name, target.name));
    count(pair(table.name, target.name));
  }

  for (const { table, field, spec, target } of referring) {
    const shared = (counts.get(directed(table.name, target.name)) ?? 0) > 1 || target === table;
    const named = shared || (counts.get(pair(table.name, target.name)) ?? 0) > 1;
    const base = field.name.endsWith("_id") && field.name.length > 3 ? field.name.slice(0, -3) : `${field.name}_ref`;
    const fieldName = unique(base, taken.get(table.name)!);
    const backBase = shared ? `${table.name}_by_${field.name}` : table.name;
    const backFieldName = unique(backBase, taken.get(target.name)!);
    const relation: Relation = {
      table: target.name,
      onDelete: spec.onDelete ?? "restrict",
      fieldName,
      backFieldName,
      ...(named && { relationName: `${table.name}_${field.name}` }),
      ...(spec.as !== undefined && { as: spec.as }),
      ...(spec.reverse !== undefined && { reverse: spec.reverse }),
    };
    field.relation = relation;
    const reference: Reference = { table: table.name, field: field.name, onDelete: relation.onDelete };
    target.referencedBy.push(reference);
  }
}

function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** The model with its queries' output columns, as the CLI's query check learned them. */
export function withQueryColumns(model: Model, columns: ReadonlyMap<string, QueryColumn[]>): Model {
  return {
    ...model,
    queries: model.queries.map((query) => {
      const learned = columns.get(query.name);
      return learned ? { ...query, columns: learned } : query;
    }),
  };
}

/** The kind of a table's column (its id or a field) as a query reads it straight from the table, if the model has it. */
export function columnKind(model: Model, table: string, column: string): ValueKind | undefined {
  const found = model.tables.find((candidate) => candidate.name === table);
  if (!found) return undefined;
  if (column === "id") return idValueKind(found);
  return found.fields.find((field) => field.name === column)?.kind;
}

/** The kind of a table's id as a value: a uuid, a bigint (a string of digits), or a 32-bit integer. */
export function idValueKind(table: Pick<Table, "id">): "uuid" | "bigint" | "integer" {
  return table.id === "number" ? "integer" : table.id;
}
