import type { Model, Reference, Table } from "./types.ts";

/** How many cascades deep a delete's refusal is traced to the restricting reference in its way. */
const CASCADE_DEPTH = 3;

/** A reference that can refuse the delete of a record, and the cascades that lead to it. */
export interface RefusingReference {
  reference: Reference;
  /** The cascading references from the deleted record's table to the one that refuses. */
  path: Reference[];
  /** How a refusal names it: `loans`, or `comments (through posts)`. */
  label: string;
  /** The tables the label names: the referring table, and those the cascades pass through. */
  tables: string[];
}

/**
 * The references that can refuse the delete of a record of `table`: those with `onDelete:
 * restrict` to the table, and those (up to CASCADE_DEPTH cascades away) to records the delete's
 * cascades would delete. A cascading or nulling reference never refuses a delete itself, so it is
 * never named. The server's checks and the OpenAPI document's messages both come from here.
 */
export function refusingReferences(table: Table, model: Model): RefusingReference[] {
  const tables = tablesByName(model);
  const refusing: RefusingReference[] = [];
  const visit = (current: Table, path: Reference[]) => {
    for (const reference of current.referencedBy) {
      if (path.some((step) => step.table === reference.table && step.field === reference.field)) continue;
      if (reference.onDelete === "cascade" && path.length < CASCADE_DEPTH) {
        visit(tables.get(reference.table)!, [...path, reference]);
      }
      if (reference.onDelete !== "restrict") continue;
      const through = path.map((step) => step.table);
      const label = through.length === 0 ? reference.table : `${reference.table} (through ${through.join(", ")})`;
      refusing.push({ reference, path, label, tables: [reference.table, ...through] });
    }
  };
  visit(table, []);
  return refusing;
}

/**
 * The versions of `table` in which a refusal may name `refusing`: those that have every table its
 * label names (a version's messages name only what that version has). A refusal in another version
 * counts it among `other records`.
 */
export function namingVersions(refusing: RefusingReference, table: Table, model: Model): string[] {
  const tables = tablesByName(model);
  return table.versions.filter((version) =>
    refusing.tables.every((name) => tables.get(name)?.versions.includes(version)),
  );
}

/** A model's tables by name, made once per model: every table asks (a large model has thousands). */
const byName = new WeakMap<Model, Map<string, Table>>();
function tablesByName(model: Model): Map<string, Table> {
  let tables = byName.get(model);
  if (!tables) byName.set(model, (tables = new Map(model.tables.map((candidate) => [candidate.name, candidate]))));
  return tables;
}
