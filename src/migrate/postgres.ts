import type { RawManifest } from "../manifest/schema.ts";
import { buildModel } from "../model/build.ts";
import type { Rename } from "./plan.ts";

const quote = (name: string) => `"${name}"`;

/**
 * PostgreSQL statements for renames. Prisma names constraints, indexes and sequences after their
 * table and column (`users_pkey`, `users_email_key`, `posts_user_id_fkey`, `users_id_seq`) and later
 * migrations refer to them by those names, so they are renamed along with what they belong to.
 */
export function postgresRenames(renames: Rename[], renamedPrevious: RawManifest): string {
  if (renames.length === 0) return "";
  const tableRenames = renames.filter((rename) => rename.kind === "table");
  const oldTable = (table: string) => tableRenames.find((rename) => rename.to === table)?.from ?? table;
  const oldColumn = (table: string, column: string) =>
    renames.find((rename) => rename.kind === "field" && rename.table === table && rename.to === column)?.from ?? column;

  const lines = ["-- Renames (tablegen: renamedFrom keeps the data)"];
  for (const { from, to } of tableRenames) lines.push(`ALTER TABLE ${quote(from)} RENAME TO ${quote(to)};`);
  for (const rename of renames) {
    if (rename.kind === "field")
      lines.push(`ALTER TABLE ${quote(rename.table)} RENAME COLUMN ${quote(rename.from)} TO ${quote(rename.to)};`);
  }
  for (const table of buildModel(renamedPrevious).tables) {
    const before = oldTable(table.name);
    const renameConstraint = (from: string, to: string) => {
      if (from !== to) lines.push(`ALTER TABLE ${quote(table.name)} RENAME CONSTRAINT ${quote(from)} TO ${quote(to)};`);
    };
    renameConstraint(`${before}_pkey`, `${table.name}_pkey`);
    if (table.id === "number" && before !== table.name) {
      lines.push(`ALTER SEQUENCE ${quote(`${before}_id_seq`)} RENAME TO ${quote(`${table.name}_id_seq`)};`);
    }
    for (const field of table.fields) {
      const column = oldColumn(table.name, field.name);
      if (field.unique && `${before}_${column}_key` !== `${table.name}_${field.name}_key`) {
        lines.push(
          `ALTER INDEX ${quote(`${before}_${column}_key`)} RENAME TO ${quote(`${table.name}_${field.name}_key`)};`,
        );
      }
      if (field.relation) renameConstraint(`${before}_${column}_fkey`, `${table.name}_${field.name}_fkey`);
    }
  }
  return lines.join("\n") + "\n";
}
