import type { RelationView } from "../src/studio/protocol.ts";

/**
 * What the table designer says under a reference's names in `expand` (`as:` and `reverse:`): what
 * a given name embeds, what a blank one comes to (the default), or why a blank one comes to none.
 * The names themselves are the generator's (the studio server's relations, from tableExpansions);
 * only the reason a default is left out is told here, from the draft.
 */

interface DraftField {
  references?: string;
  as?: string;
  reverse?: string;
  names?: Record<string, string>;
}

type DraftTables = Record<string, { fields: Record<string, DraftField | string> }>;

export interface RelationHint {
  /** The name a blank input comes to, shown greyed in it. */
  placeholder: string | undefined;
  hint: string;
}

const fieldOf = (field: DraftField | string): DraftField => (typeof field === "string" ? {} : field);

/** `a`, `a and b`, `a, b and c`. */
const listed = (names: string[]) =>
  names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "");

/** The name a reference is expanded under by default: its name without `_id` (defaultForwardName in src/model). */
export const nameWithoutId = (name: string) =>
  name.endsWith("_id") && name.length > 3 ? name.slice(0, -3) : undefined;

/**
 * The hints of field `name` of `table`. `relations` is what the server found the draft to expand,
 * by table; undefined while the draft is being checked or has problems (then a blank name is told
 * its default by the rule alone).
 */
export function relationHints(
  tables: DraftTables,
  table: string,
  name: string,
  relations: Record<string, RelationView[]> | undefined,
): { as: RelationHint; reverse: RelationHint } {
  const field = fieldOf(tables[table]?.fields[name] ?? {});
  const target = field.references;
  const forward = relations?.[table]?.find((relation) => relation.kind === "one" && relation.field === name);
  const reverse =
    target === undefined
      ? undefined
      : relations?.[target]?.find(
          (relation) => relation.kind === "many" && relation.table === table && relation.field === name,
        );
  /** Why a default name is not this relation's: a field of the table has it, or another relation. */
  const takenOn = (on: string, taken: string) => {
    const fields = tables[on]?.fields ?? {};
    const isField =
      taken in fields ||
      Object.values(fields).some((other) => Object.values(fieldOf(other).names ?? {}).includes(taken));
    return isField ? `"${taken}" is a field of ${on}` : `"${taken}" names another relation of ${on}`;
  };

  const defaultName = nameWithoutId(name);
  const forwardKept = forward !== undefined || relations === undefined;
  const as: RelationHint = {
    placeholder: forwardKept ? defaultName : undefined,
    hint:
      field.as !== undefined
        ? `expand=${field.as} on ${table} embeds the ${target ?? "referenced"} record.`
        : defaultName === undefined
          ? "Blank: not expandable, as the name does not end in _id."
          : forwardKept
            ? `Blank: expand=${defaultName}, the field's name without _id.`
            : `Blank: not expandable, as ${takenOn(table, defaultName)}.`,
  };

  const on = target ?? "the referenced table";
  const reverseKept = reverse !== undefined || relations === undefined || target === undefined;
  const twins = Object.entries(tables[table]?.fields ?? {})
    .filter(
      ([other, spec]) => other !== name && fieldOf(spec).references === target && fieldOf(spec).reverse === undefined,
    )
    .map(([other]) => other);
  return {
    as,
    reverse: {
      placeholder: reverseKept ? table : undefined,
      hint:
        field.reverse !== undefined
          ? `expand=${field.reverse} on ${on} embeds the ${table} records referring to one.`
          : reverseKept
            ? `Blank: expand=${table} on ${on}, this table's name.`
            : twins.length > 0
              ? `Blank: not expandable, as ${listed(twins)} also refer${twins.length === 1 ? "s" : ""} to ${target} from ${table}: name each.`
              : `Blank: not expandable, as ${takenOn(target!, table)}.`,
    },
  };
}
