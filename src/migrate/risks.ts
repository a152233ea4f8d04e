import type { Rename, Risk } from "./plan.ts";

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** A risk as one line, with the number of rows it affects when the database could tell. */
export function describeRisk(risk: Risk, rows?: number): string {
  const at = risk.kind === "table-removed" ? risk.table : `${risk.table}.${risk.field}`;
  const [what, affected] = wording(risk, rows ?? 0);
  return rows === undefined ? `${at}: ${what}` : `${at}: ${what}, ${affected}`;
}

function wording(risk: Risk, rows: number): [string, string] {
  const holding = plural(rows, "row holds a value", "rows hold a value");
  switch (risk.kind) {
    case "table-removed":
      return ["table removed", plural(rows, "row", "rows")];
    case "field-removed":
      return ["field removed", holding];
    case "type-changed":
      return [`type changes from ${risk.from} to ${risk.to}`, holding];
    case "narrowed":
      return [
        `maxLength narrows from ${risk.from ?? "unlimited"} to ${risk.to}`,
        plural(rows, "row is longer", "rows are longer"),
      ];
    case "made-unique":
      return ["becomes unique", plural(rows, "row shares its value", "rows share a value")];
    case "made-required":
      return ["becomes required without a default", plural(rows, "row holds no value", "rows hold no value")];
  }
}

/**
 * The SQL that counts the rows a risk affects, in the database as it is before the migration
 * (so with the names the renames are about to change). Portable between SQLite and PostgreSQL.
 */
export function riskCountSql(risk: Risk, renames: Rename[]): string {
  const table = renames.find((rename) => rename.kind === "table" && rename.to === risk.table)?.from ?? risk.table;
  const from = `FROM "${table}"`;
  if (risk.kind === "table-removed") return `SELECT count(*) AS n ${from}`;
  const renamed = renames.find(
    (rename) => rename.kind === "field" && rename.table === risk.table && rename.to === risk.field,
  );
  const column = `"${renamed?.from ?? risk.field}"`;
  switch (risk.kind) {
    case "field-removed":
    case "type-changed":
      return risk.field === "id"
        ? `SELECT count(*) AS n ${from}`
        : `SELECT count(*) AS n ${from} WHERE ${column} IS NOT NULL`;
    case "narrowed":
      return `SELECT count(*) AS n ${from} WHERE length(${column}) > ${risk.to}`;
    case "made-unique":
      return `SELECT coalesce(sum(c), 0) AS n FROM (SELECT count(*) AS c ${from} WHERE ${column} IS NOT NULL GROUP BY ${column} HAVING count(*) > 1) AS shared`;
    case "made-required":
      return `SELECT count(*) AS n ${from} WHERE ${column} IS NULL`;
  }
}
