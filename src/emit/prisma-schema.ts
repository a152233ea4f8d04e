import type { Field, Model, Table } from "../model/types.ts";

const ON_DELETE = { restrict: "Restrict", cascade: "Cascade", setNull: "SetNull" } as const;

/** `prisma/schema.prisma`: one model per table, mapped to the manifest's names. */
export function emitPrismaSchema(model: Model): string {
  const provider = model.database === "sqlite" ? "sqlite" : "postgresql";
  const header = [
    "generator client {",
    '  provider     = "prisma-client"',
    '  output       = "../src/generated/prisma"',
    '  engineType   = "client"',
    '  moduleFormat = "esm"',
    "}",
    "",
    "datasource db {",
    `  provider = "${provider}"`,
    '  url      = env("DATABASE_URL")',
    "}",
  ].join("\n");
  return [header, ...model.tables.map((table) => emitModel(table, model))].join("\n\n") + "\n";
}

function emitModel(table: Table, model: Model): string {
  const postgres = model.database === "postgresql";
  const id: Row =
    table.id === "uuid"
      ? ["id", "String", `@id @default(uuid())${postgres ? " @db.Uuid" : ""}`]
      : ["id", "Int", "@id @default(autoincrement())"];
  const rows: Row[] = [id];
  for (const field of table.fields)
    rows.push([field.name, `${field.prismaType}${field.required ? "" : "?"}`, attributes(field, postgres)]);
  for (const field of table.fields) {
    const relation = field.relation;
    if (!relation) continue;
    const target = model.tables.find((candidate) => candidate.name === relation.table)!;
    const name = relation.relationName ? `"${relation.relationName}", ` : "";
    const optional = field.required ? "" : "?";
    rows.push([
      relation.fieldName,
      `${target.modelName}${optional}`,
      `@relation(${name}fields: [${field.name}], references: [id], onDelete: ${ON_DELETE[relation.onDelete]})`,
    ]);
  }
  for (const other of model.tables) {
    for (const field of other.fields) {
      if (field.relation?.table !== table.name) continue;
      const name = field.relation.relationName ? ` @relation("${field.relation.relationName}")` : "";
      rows.push([field.relation.backFieldName, `${other.modelName}[]`, name.trim()]);
    }
  }
  const nameWidth = Math.max(...rows.map(([name]) => name.length));
  const typeWidth = Math.max(...rows.map(([, type]) => type.length));
  const body = rows.map(([name, type, rest]) =>
    `  ${name.padEnd(nameWidth)} ${type.padEnd(typeWidth)} ${rest}`.trimEnd(),
  );
  return [`model ${table.modelName} {`, ...body, "", `  @@map("${table.name}")`, "}"].join("\n");
}

type Row = [name: string, type: string, attributes: string];

function attributes(field: Field, postgres: boolean): string {
  const list: string[] = [];
  if (field.unique) list.push("@unique");
  const defaultValue = prismaDefault(field);
  if (defaultValue) list.push(`@default(${defaultValue})`);
  if (postgres) {
    if (field.kind === "datetime") list.push("@db.Timestamptz(0)");
    else if (field.kind === "uuid") list.push("@db.Uuid");
    else if (field.kind === "text" && field.maxLength !== undefined) list.push(`@db.VarChar(${field.maxLength})`);
  }
  return list.join(" ");
}

function prismaDefault(field: Field): string | undefined {
  const value = field.default;
  if (!value) return undefined;
  if (value.kind === "now") return "now()";
  if (field.kind === "datetime") return JSON.stringify(new Date(String(value.value)).toISOString());
  return typeof value.value === "string" ? JSON.stringify(value.value) : String(value.value);
}
