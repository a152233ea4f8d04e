import type { Field, Model } from "../model/types.ts";
import { tableIndexes } from "../model/indexes.ts";
import { targetFor } from "../targets/index.ts";

/**
 * The SQL of a server's first migration, from nothing to the tables of the model, written as
 * `prisma migrate diff --from-empty` writes it for the schema `emitPrismaSchema` makes (its steps,
 * order, names and layout, checked against Prisma in test/emit/first-migration.test.ts), in the
 * target's dialect (`Target.tableSql`): generate then starts no Prisma process for a new server.
 * Undefined for anything it does not know (a text default Prisma might escape its own way, a
 * fractional default): Prisma computes that one.
 */
export function firstMigrationSql(model: Model): string | undefined {
  const dialect = targetFor(model.database).tableSql;
  const tables: string[] = [];
  const indexes: string[] = [];
  const foreignKeys: string[] = [];
  for (const table of model.tables) {
    const columns = [dialect.id(table)];
    for (const field of table.fields) {
      const fallback = field.default === undefined ? "" : dialect.defaultSql(field);
      if (fallback === undefined) return undefined;
      const required = field.required ? " NOT NULL" : "";
      columns.push(`"${field.name}" ${dialect.type(field)}${required}${fallback && ` DEFAULT ${fallback}`}`);
    }
    const references = table.fields.filter((field) => field.relation);
    const constraint = (field: Field) => {
      const { table: target, onDelete } = field.relation!;
      const name = dialect.name(`${table.name}_${field.name}`, "fkey");
      return `CONSTRAINT "${name}" FOREIGN KEY ("${field.name}") REFERENCES "${target}"${dialect.referenceSpace}("id") ON DELETE ${ON_DELETE[onDelete]} ON UPDATE CASCADE`;
    };
    tables.push(`CREATE TABLE "${table.name}" (\n${dialect.body(table, columns, references.map(constraint))}\n)`);
    for (const field of table.fields.filter((candidate) => candidate.unique)) {
      const name = dialect.name(`${table.name}_${field.name}`, "key");
      indexes.push(`CREATE UNIQUE INDEX "${name}" ON "${table.name}"("${field.name}")`);
    }
    for (const { name, fields } of tableIndexes(table)) {
      indexes.push(`CREATE INDEX "${name}" ON "${table.name}"(${fields.map((field) => `"${field}"`).join(", ")})`);
    }
    if (dialect.foreignKeysApart) {
      for (const field of references) foreignKeys.push(`ALTER TABLE "${table.name}" ADD ${constraint(field)}`);
    }
  }
  const steps = [
    ...tables.map((sql) => `-- CreateTable\n${sql};\n`),
    ...indexes.map((sql) => `-- CreateIndex\n${sql};\n`),
    ...foreignKeys.map((sql) => `-- AddForeignKey\n${sql};\n`),
  ];
  return steps.join("\n");
}

const ON_DELETE = { restrict: "RESTRICT", cascade: "CASCADE", setNull: "SET NULL" } as const;
