import { buildModel } from "../model/build.ts";
import type { RawManifest } from "../manifest/schema.ts";
import type { Rename } from "./plan.ts";

const quote = (name: string) => `"${name}"`;
const uniqueIndex = (table: string, column: string) => `${table}_${column}_key`;

/**
 * SQLite statements for renames. Columns and tables keep their rows; unique indexes, which Prisma
 * names after table and column, are recreated under their new names.
 */
export function sqliteRenames(renames: Rename[], renamedPrevious: RawManifest): string {
  if (renames.length === 0) return "";
  const lines = ["-- Renames (tablegen: renamedFrom keeps the data)"];
  const tableRenames = renames.filter((rename) => rename.kind === "table");
  for (const rename of tableRenames) lines.push(`ALTER TABLE ${quote(rename.from)} RENAME TO ${quote(rename.to)};`);
  for (const rename of renames) {
    if (rename.kind === "field")
      lines.push(`ALTER TABLE ${quote(rename.table)} RENAME COLUMN ${quote(rename.from)} TO ${quote(rename.to)};`);
  }
  for (const table of buildModel(renamedPrevious).tables) {
    const oldTable = tableRenames.find((rename) => rename.to === table.name)?.from ?? table.name;
    for (const field of table.fields.filter((candidate) => candidate.unique)) {
      const fieldRename = renames.find(
        (rename) => rename.kind === "field" && rename.table === table.name && rename.to === field.name,
      );
      const before = uniqueIndex(oldTable, fieldRename?.from ?? field.name);
      const after = uniqueIndex(table.name, field.name);
      if (before === after) continue;
      lines.push(
        `DROP INDEX ${quote(before)};`,
        `CREATE UNIQUE INDEX ${quote(after)} ON ${quote(table.name)}(${quote(field.name)});`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * Makes a SQLite migration all-or-nothing. Prisma runs the script in one go without a transaction,
 * and its table rebuilds switch foreign keys off, which SQLite ignores inside a transaction; so
 * foreign keys go off first, the statements run in a transaction, and a final check fails the
 * transaction (and so undoes it) if any row is left referring to nothing.
 */
export function wrapSqliteMigration(sql: string): string {
  const body = sql
    .split("\n")
    .filter((line) => !/^PRAGMA (defer_)?foreign_keys=(ON|OFF);$/.test(line.trim()))
    .join("\n")
    .trim();
  return [
    "PRAGMA foreign_keys=OFF;",
    "BEGIN;",
    "",
    body,
    "",
    "-- Every reference must still point at a row, or the CHECK fails and nothing above is kept.",
    "CREATE TEMP TABLE _tablegen_foreign_key_check (violations INTEGER CHECK (violations = 0));",
    "INSERT INTO _tablegen_foreign_key_check SELECT count(*) FROM pragma_foreign_key_check;",
    "DROP TABLE _tablegen_foreign_key_check;",
    "COMMIT;",
    "PRAGMA foreign_keys=ON;",
    "",
  ].join("\n");
}
