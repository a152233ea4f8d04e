/**
 * What a newer tablegen writes differently for the same manifest: the Prisma schema the latest
 * migration applied, compared with the one the same manifest gives now (a DATETIME default in the
 * server's stored form, an index named another way). A migration carries these changes too; they
 * are named here so that the plan says what it does, table by table.
 */
export function schemaUpdates(applied: string, current: string): string[] {
  const [before, after] = [prismaModels(applied), prismaModels(current)];
  const updates: string[] = [];
  for (const [table, model] of after) {
    const old = before.get(table);
    if (!old) continue;
    for (const [field, attributes] of model.fields) {
      const was = old.fields.get(field);
      if (was === undefined || was === attributes) continue;
      updates.push(`${table}.${field}: ${attributeChanged(was, attributes)} rewritten as this tablegen writes it`);
    }
    if (old.indexes !== model.indexes) updates.push(`${table}: indexes rewritten as this tablegen writes them`);
  }
  return updates;
}

export interface PrismaModel {
  /**
   * Each column's type and attributes (spaces collapsed), by its name, in the order of the model
   * (relation fields, which are no column, left out).
   */
  fields: Map<string, string>;
  /** The model's index lines, as one text. */
  indexes: string;
  /**
   * Its relation fields that hold a foreign key (`user Users @relation(...)`), as one text; the lists
   * of the records referring to it (`posts Posts[]`) are another table's and left out.
   */
  relations: string;
}

/** The models of a Prisma schema as tablegen writes it, by their table's name (`@@map`). */
export function prismaModels(schema: string): Map<string, PrismaModel> {
  const models = new Map<string, PrismaModel>();
  for (const [, body] of schema.matchAll(/^model \w+ \{\n([\s\S]*?)^\}/gm)) {
    const lines = body!.split("\n").map((line) => line.trim());
    const table = /^@@map\("([^"]+)"\)$/.exec(lines.find((line) => line.startsWith("@@map(")) ?? "")?.[1];
    if (!table) continue;
    const fields = new Map<string, string>();
    const relations: string[] = [];
    for (const line of lines) {
      const [name, type, ...attributes] = line.split(/\s+/);
      if (!name || !type || name.startsWith("@@") || name.startsWith("//")) continue;
      // A relation field's type is a model, not one of the scalars a column has.
      if (/^(Int|Float|String|Boolean|DateTime)\??$/.test(type))
        fields.set(name, `${type} ${attributes.join(" ")}`.trim());
      else if (!type.endsWith("[]")) relations.push([name, type, ...attributes].join(" "));
    }
    const indexes = lines.filter((line) => /^@@(index|unique)\(/.test(line)).join("\n");
    models.set(table, { fields, indexes, relations: relations.join("\n") });
  }
  return models;
}

function attributeChanged(was: string, is: string): string {
  const part = (text: string, pattern: RegExp) => pattern.exec(text)?.[0];
  const what: string[] = [];
  if (part(was, /@default\(.*?\)(?=\s@|$)/) !== part(is, /@default\(.*?\)(?=\s@|$)/)) what.push("default");
  if (was.split(" ")[0] !== is.split(" ")[0] || part(was, /@db\.\S+/) !== part(is, /@db\.\S+/))
    what.push("column type");
  if (was.includes("@unique") !== is.includes("@unique")) what.push("unique constraint");
  return what.length > 0 ? what.join(" and ") : "column";
}
