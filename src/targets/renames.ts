import type { Rename } from "../migrate/plan.ts";
import { indexName, tableIndexes } from "../model/indexes.ts";
import type { Model } from "../model/types.ts";

/** A table's name before the renames, and a field's. */
function oldNames(renames: Rename[]) {
  const tableRenames = renames.filter((rename) => rename.kind === "table");
  const table = (name: string) => tableRenames.find((rename) => rename.to === name)?.from ?? name;
  const column = (tableName: string, name: string) =>
    renames.find((rename) => rename.kind === "field" && rename.table === tableName && rename.to === name)?.from ?? name;
  return { table, column };
}

/** The indexes whose name the renames change (names derive from table and fields): before and after. */
export function renamedIndexes(renames: Rename[], renamedPrevious: Model) {
  const old = oldNames(renames);
  return renamedPrevious.tables.flatMap((table) =>
    tableIndexes(table)
      .map((index) => ({
        table: table.name,
        fields: index.fields,
        from: indexName(
          old.table(table.name),
          index.fields.map((field) => old.column(table.name, field)),
        ).name,
        to: index.name,
      }))
      .filter(({ from, to }) => from !== to),
  );
}
