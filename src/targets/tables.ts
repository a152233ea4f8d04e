import { camelCase, pascalCase } from "../manifest/names.ts";
import { namingVersions, refusingReferences } from "../model/references.ts";
import { MAX_EXPANDED_MANY } from "../model/expansions.ts";
import type { Field, Model, Table, ValueKind } from "../model/types.ts";
import { idValueKind } from "../model/build.ts";
import { columnList, quote, sqlList, statement } from "./sql.ts";

/** TypeScript type of a value of each kind, as the API exchanges it. */
export const TS_TYPES = {
  float: "number",
  integer: "number",
  uuid: "string",
  bigint: "string",
  text: "string",
  boolean: "boolean",
  datetime: "string",
} as const;

/** Identifiers the generated code uses for one table. */
export interface TableNames {
  table: string;
  record: string;
  input: string;
  rowType: string;
  schemas: string;
  listTable: string;
  factory: string;
  tableType: string;
  routes: string;
  /** Each API version's schemas and names, for a table whose versions differ. */
  versionsName: string;
}

export function tableNames(table: string): TableNames {
  const pascal = pascalCase(table);
  const camel = camelCase(table);
  return {
    table,
    record: `${pascal}Record`,
    input: `${pascal}Input`,
    rowType: `${pascal}Row`,
    schemas: `${camel}Schemas`,
    listTable: `${camel}ListTable`,
    factory: `${camel}Table`,
    tableType: `${pascal}Table`,
    routes: `${camel}Routes`,
    versionsName: `${camel}Versions`,
  };
}

/** Identifiers the generated code uses for one custom query. */
export interface QueryNames {
  factory: string;
  queryType: string;
  routes: string;
}

export function queryNames(query: string): QueryNames {
  const pascal = pascalCase(query);
  const camel = camelCase(query);
  return { factory: `${camel}Query`, queryType: `${pascal}Query`, routes: `${camel}Route` };
}

/** How a database binds parameters and stores values: what its target decides for the table module. */
export interface Storage {
  /** The parameter for a named value at a 1-based position, in statements bound with several values. */
  param(name: string, position: number): string;
  /** The parameter of a statement bound with one value (an id). */
  readonly single: string;
  /** The SQL that keeps a column unless the update names it: `iif(...)` or `CASE WHEN ... END`. */
  keepUnlessSet(column: string, flag: string, value: string): string;
  /** A condition that `column` is one of the ids bound as the statement's one parameter (`expand`'s reads). */
  inIds(column: string): string;
  /** values.ts function that turns the field's API value into its stored form, if it needs one. */
  converter(field: Field): string | undefined;
  /** The stored form of the field's default, as a literal (or `storedNow()`). */
  storedDefault(field: Field): string;
  /**
   * A column as the statements return it, if not as it is stored: PostgreSQL's bigint ids and
   * references as text (`"id"::text AS "id"`), which no client reads as a rounded number.
   */
  returned?(column: { name: string; kind: ValueKind }): string | undefined;
  /**
   * The SQL a statement orders by a table's id in, where the id may be returned as text: the
   * number's order (`"id"::int8`), not the text's.
   */
  idOrder?(table: Table): string | undefined;
}

/** A statement of the table module, named: its database's `statement` partial writes it as the driver prepares it. */
export interface Statement {
  name: string;
  sql: string;
}

/**
 * The context of every database's table module template (`templates/server/<database>/table.ts.hbs`)
 * and of the shared partials it calls (`tableImports`, `sql`, `checks`).
 */
export interface TableContext extends TableNames {
  uuid: boolean;
  idType: "string" | "number";
  idParser: IdParser;
  /** The column list every statement returns. */
  columns: string;
  sql: {
    find: string;
    insert: string;
    update: string;
    remove: string;
    withIds: string;
    batch?: string;
    insertMany?: string;
  };
  /**
   * Each reference field, with the statement reading the records that refer to a set of ids through
   * it: at most MAX_EXPANDED_MANY each, in id order (`expand` of a reverse relation).
   */
  referring: (Statement & { field: string })[];
  /** Each reference field, with a statement telling whether the record it names exists. */
  references: { field: string; table: string; exists: Statement }[];
  /** The references that can refuse a delete, each with a statement telling whether it holds the id. */
  referrers: { table: string; holds: Statement }[];
  fields: {
    name: string;
    /** The field's stored value on create: its default when the input leaves it out. */
    createValue: string;
    /** The field's stored value on update, null when the changes leave it out. */
    changeValue: string;
  }[];
  /** The values.ts functions the module imports. */
  valueHelpers: string[];
}

/**
 * What the table modules of every database share: names, the statements (laid out by the target's
 * parameter style), reference checks, and each field's stored value on create and update.
 */
export function tableContext(table: Table, model: Model, storage: Storage): TableContext {
  const names = tableNames(table.name);
  const inserted = [...(table.id === "uuid" ? ["id"] : []), ...table.fields.map((field) => field.name)];
  let position = 0;
  const insertParams = inserted.map((name) => storage.param(name, ++position));
  // Update: the id first, then for each field whether it changes and its new value.
  position = 1;
  const sets = table.fields.map((field) => {
    const flag = storage.param(`set_${field.name}`, ++position);
    const value = storage.param(field.name, ++position);
    return `${quote(field.name)} = ${storage.keepUnlessSet(quote(field.name), flag, value)}`;
  });
  const id = storage.single;
  const from = `FROM ${quote(table.name)}`;
  return {
    ...names,
    uuid: table.id === "uuid",
    idType: table.id === "number" ? "number" : "string",
    idParser: ID_PARSERS[table.id],
    columns: returnedColumns(table, storage),
    sql: {
      find: statement(["SELECT ${COLUMNS}", from, `WHERE "id" = ${id}`]),
      insert: statement([
        `INSERT INTO ${quote(table.name)} ${sqlList(inserted.map(quote), "(", ")")}`,
        `VALUES ${sqlList(insertParams, "(", ")")}`,
        "RETURNING ${COLUMNS}",
      ]),
      update: statement([
        `UPDATE ${quote(table.name)} SET${sqlList(sets, " ")}`,
        `WHERE "id" = ${storage.param("id", 1)}`,
        "RETURNING ${COLUMNS}",
      ]),
      remove: statement([`DELETE ${from}`, `WHERE "id" = ${id}`]),
      withIds: statement(["SELECT ${COLUMNS}", from, `WHERE ${storage.inIds('"id"')}`]),
    },
    referring: table.fields.flatMap(({ name, relation }) =>
      relation
        ? [
            {
              field: name,
              name: `${table.name}.referring.${name}`,
              sql: statement([
                "SELECT ${COLUMNS} FROM (",
                `  SELECT \${COLUMNS}, row_number() OVER (PARTITION BY ${quote(name)} ORDER BY "id") AS "tablegen_rank"`,
                `  ${from} WHERE ${storage.inIds(quote(name))}`,
                `) AS "referring" WHERE "tablegen_rank" <= ${MAX_EXPANDED_MANY} ORDER BY ${storage.idOrder?.(table) ?? '"id"'}`,
              ]),
            },
          ]
        : [],
    ),
    references: table.fields.flatMap(({ name, relation }) =>
      relation
        ? [
            {
              field: name,
              table: relation.table,
              exists: {
                name: `${relation.table}.exists`,
                sql: `SELECT 1 FROM ${quote(relation.table)} WHERE "id" = ${storage.single}`,
              },
            },
          ]
        : [],
    ),
    referrers: deleteBlockers(table, model, storage.single).map(({ table, name, sql, versions }) => ({
      table,
      ...(versions && { versions }),
      holds: { name, sql },
    })),
    fields: table.fields.map((field) => {
      const converter = storage.converter(field);
      const stored = (value: string) => (converter ? `${converter}(${value})` : value);
      const input = `input.${field.name}`;
      return {
        name: field.name,
        createValue:
          field.default !== undefined
            ? `${input} === undefined ? ${storage.storedDefault(field)} : ${stored(input)}`
            : converter || field.required
              ? stored(input)
              : `${input} ?? null`,
        changeValue: converter ? stored(`changes.${field.name}`) : `changes.${field.name} ?? null`,
      };
    }),
    valueHelpers: valueHelpers(table, storage),
  };
}

/** The ids.ts function that reads a table's id from a path. */
export type IdParser = "uuidId" | "numberId" | "bigintId";
export const ID_PARSERS = { number: "numberId", uuid: "uuidId", bigint: "bigintId" } as const satisfies Record<
  Table["id"],
  IdParser
>;

/** The columns every statement of a table returns, in their order: the id, then the fields in the table's order. */
export const returnedFields = (table: Table) => [{ name: "id", kind: idValueKind(table) }, ...table.fields];

/** The column list every statement of a table returns (returnedFields), each as its database returns it. */
function returnedColumns(table: Table, storage: Storage): string {
  const columns = returnedFields(table);
  if (!storage.returned || columns.every((column) => storage.returned!(column) === undefined))
    return columnList(columns.map(({ name }) => name));
  return sqlList(columns.map((column) => storage.returned!(column) ?? quote(column.name)));
}

/**
 * The references that can refuse the delete of a record (model/references.ts), each with a
 * statement telling whether it holds the record's id, or one the delete's cascades would delete.
 */
function deleteBlockers(table: Table, model: Model, single: string) {
  return refusingReferences(table, model).map((refusing) => {
    const { reference, path, label } = refusing;
    // Named only in the versions that have its tables, when some of the table's versions do not.
    const naming = namingVersions(refusing, table, model);
    // Which records the delete reaches: the record itself, then those its cascades delete.
    let reached = `= ${single}`;
    for (const step of path)
      reached = `IN (SELECT "id" FROM ${quote(step.table)} WHERE ${quote(step.field)} ${reached})`;
    return {
      table: label,
      versions: naming.length < table.versions.length ? naming : undefined,
      name: [`${reference.table}.${reference.field}.holds`, ...path.map((step) => `${step.table}.${step.field}`)].join(
        ".through.",
      ),
      sql: `SELECT 1 FROM ${quote(reference.table)} WHERE ${quote(reference.field)} ${reached} LIMIT 1`,
    };
  });
}

/** The values.ts functions a table module writes with. */
function valueHelpers(table: Table, storage: Storage): string[] {
  const helpers = new Set<string>();
  for (const field of table.fields) {
    const converter = storage.converter(field);
    if (converter) helpers.add(converter);
    if (field.default?.kind === "now") helpers.add("storedNow");
  }
  return [...helpers];
}

/** A date-time default as the API's UTC seconds, `2024-01-31T12:00:00`, without a zone designator. */
export function defaultDateTime(value: string | number | boolean): string {
  return new Date(String(value)).toISOString().slice(0, 19);
}
