import type { Field, Model, Table } from "../model/types.ts";
import { targetFor, type Target } from "../targets/index.ts";
import { tableIndexes } from "../model/indexes.ts";

const ON_DELETE = { restrict: "Restrict", cascade: "Cascade", setNull: "SetNull" } as const;

/** `prisma/schema.prisma`: one model per table, mapped to the manifest's names. */
export function emitPrismaSchema(model: Model): string {
  const target = targetFor(model.database);
  const header = [
    "generator client {",
    '  provider     = "prisma-client"',
    '  output       = "../src/generated/prisma"',
    '  engineType   = "client"',
    '  moduleFormat = "esm"',
    "}",
    "",
    "datasource db {",
    `  provider = "${target.provider}"`,
    '  url      = env("DATABASE_URL")',
    "}",
  ].join("\n");
  return [header, ...model.tables.map((table) => emitModel(table, relations(model), target))].join("\n\n") + "\n";
}

/** The model's relations, looked up by table once (a table's back-relations in model order). */
interface Relations {
  tables: Map<string, Table>;
  /** The fields of other tables (and their tables) that refer to each table. */
  referring: Map<string, { other: Table; field: Field }[]>;
}

const relationsOf = new WeakMap<Model, Relations>();
function relations(model: Model): Relations {
  let found = relationsOf.get(model);
  if (found) return found;
  const referring = new Map<string, { other: Table; field: Field }[]>(model.tables.map((table) => [table.name, []]));
  for (const other of model.tables)
    for (const field of other.fields) if (field.relation) referring.get(field.relation.table)?.push({ other, field });
  found = { tables: new Map(model.tables.map((table) => [table.name, table])), referring };
  relationsOf.set(model, found);
  return found;
}

function emitModel(table: Table, model: Relations, target: Target): string {
  const id: Row =
    table.id === "uuid"
      ? ["id", "String", ["@id @default(uuid())", ...target.uuidIdAttributes].join(" ")]
      : ["id", table.id === "bigint" ? "BigInt" : "Int", "@id @default(autoincrement())"];
  const rows: Row[] = [id];
  for (const field of table.fields)
    rows.push([field.name, `${field.prismaType}${field.required ? "" : "?"}`, attributes(field, target)]);
  for (const field of table.fields) {
    const relation = field.relation;
    if (!relation) continue;
    const target = model.tables.get(relation.table)!;
    const name = relation.relationName ? `"${relation.relationName}", ` : "";
    const optional = field.required ? "" : "?";
    rows.push([
      relation.fieldName,
      `${target.modelName}${optional}`,
      `@relation(${name}fields: [${field.name}], references: [id], onDelete: ${ON_DELETE[relation.onDelete]})`,
    ]);
  }
  for (const { other, field } of model.referring.get(table.name) ?? []) {
    const name = field.relation!.relationName ? ` @relation("${field.relation!.relationName}")` : "";
    rows.push([field.relation!.backFieldName, `${other.modelName}[]`, name.trim()]);
  }
  const nameWidth = Math.max(...rows.map(([name]) => name.length));
  const typeWidth = Math.max(...rows.map(([, type]) => type.length));
  const body = rows.map(([name, type, rest]) =>
    `  ${name.padEnd(nameWidth)} ${type.padEnd(typeWidth)} ${rest}`.trimEnd(),
  );
  const indexes = tableIndexes(table).map(
    ({ fields, name, mapped }) => `  @@index([${fields.join(", ")}]${mapped ? `, map: "${name}"` : ""})`,
  );
  return [`model ${table.modelName} {`, ...body, "", ...indexes, `  @@map("${table.name}")`, "}"].join("\n");
}

type Row = [name: string, type: string, attributes: string];

function attributes(field: Field, target: Target): string {
  const list: string[] = [];
  if (field.unique) list.push("@unique");
  const defaultValue = prismaDefault(field, target);
  if (defaultValue) list.push(`@default(${defaultValue})`);
  list.push(...target.prismaAttributes(field));
  return list.join(" ");
}

function prismaDefault(field: Field, target: Target): string | undefined {
  const value = field.default;
  if (!value) return undefined;
  if (field.kind === "datetime") return target.prismaDateTimeDefault(value);
  if (value.kind === "now") throw new Error(`${field.name}: now is a default of DATETIME fields only`);
  // A bigint reference's default is its digits, a BigInt literal to Prisma.
  if (field.kind === "bigint") return String(value.value);
  return typeof value.value === "string" ? JSON.stringify(value.value) : String(value.value);
}
