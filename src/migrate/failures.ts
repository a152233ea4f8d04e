import type { Model } from "../model/types.ts";
import type { MigrationPlan } from "./plan.ts";

/**
 * Why the database refused a migration, said once for both databases, naming table and column,
 * where Prisma's words are the database's constraint failure. Other reasons are kept as they are.
 *
 * - NOT NULL: SQLite names the table Prisma's rebuild copies rows into (`new_<table>.<column>`);
 *   PostgreSQL's `SET NOT NULL` names them as tablegen's migration adapter passes them on
 *   (src/runtime/prisma-adapter.ts), `(<table>.<column>)`.
 * - UNIQUE: both name the column only; the table is the one the plan makes that field unique in,
 *   or else the one table of the model with a unique field of that name (a migration written
 *   before, with --create-only, and applied now).
 */
export function explainFailure(reason: string, plan: MigrationPlan, model: Model): string {
  const nulls =
    /NOT NULL constraint failed: (?:new_)?(\w+)\.(\w+)/.exec(reason) ??
    /Null constraint failed: \((\w+)\.(\w+)\)/.exec(reason);
  if (nulls) {
    return (
      `${nulls[1]}.${nulls[2]} holds null values, which a required field cannot take: ` +
      "give the field a default (its nulls then take it), or set them first"
    );
  }
  const unique =
    /Unique constraint failed on the fields: \(`(\w+)`\)/.exec(reason) ??
    /Unique constraint failed: \((\w+)\)/.exec(reason);
  if (!unique) return reason;
  const field = unique[1]!;
  const planned = plan.risks.find((risk) => risk.kind === "made-unique" && risk.field === field)?.table;
  const owners = model.tables.filter((table) => table.fields.some((each) => each.name === field && each.unique));
  const table = planned ?? (owners.length === 1 ? owners[0]!.name : undefined);
  if (!table) return reason;
  return `${table}.${field} holds the same value in several rows, which a unique field cannot take: make them differ first`;
}
