import type { FastifyRequest, FastifySchema } from "fastify";
import { after, deletedSchema, envelopeSchema } from "./envelope.js";
import type { ListQuery, ListTable } from "./list.js";
import { jsonBatch, WHOLE_TABLE } from "./stream.js";

type Awaitable<T> = T | Promise<T>;
/** Field values by name: a record, or a request's body. */
export type Values = Record<string, unknown>;

/** A table's route schemas, as Fastify compiles them. */
export interface RouteSchemas {
  list: FastifySchema;
  show: FastifySchema;
  create: FastifySchema;
  update: FastifySchema;
  remove: FastifySchema;
}

/** The route schemas of a table from its record and its create and update bodies. */
export function routeSchemas(record: object, createBody: object, updateBody: object): RouteSchemas {
  return {
    list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
    show: { response: { 200: envelopeSchema(record) } },
    create: { body: createBody, response: { 201: envelopeSchema(record) } },
    update: { body: updateBody, response: { 200: envelopeSchema(record) } },
    remove: { response: { 200: deletedSchema } },
  };
}

/**
 * A table as one API version answers and accepts it: its schemas, its list fields, its fields (API
 * name → stored name, id first, in the order its records have them) and the defaults its creates
 * keep (by stored name).
 */
export interface TableVersion {
  schemas: RouteSchemas;
  listTable: ListTable;
  fields: Record<string, string>;
  defaults: Values;
}

/** A record as a version answers it. */
export type ApiRecord = Values & { id: string | number };

/** What the routes call on a table (with its hooks): `Input` and `Row` in the stored names. */
export interface VersionedTable<Input = Values, Row = ApiRecord> {
  page(query: ListQuery, primary?: boolean): Awaitable<{ records: Row[]; more: boolean; total?: number }>;
  find(rawId: string, primary?: boolean): Awaitable<Row | undefined>;
  create(input: Input, request: FastifyRequest): Awaitable<Row>;
  update(rawId: string, changes: Partial<Input>, request: FastifyRequest): Awaitable<Row | undefined>;
  remove(rawId: string, request: FastifyRequest): Awaitable<boolean>;
}

/**
 * The table as a version has it: records answered under the version's names and with its fields
 * only, inputs and list queries read in its names, creates given its defaults.
 */
export function versioned<Input, Row extends ApiRecord>(table: VersionedTable<Input, Row>, version: TableVersion) {
  const { fields, defaults } = version;
  const names = Object.entries(fields);
  const record = (row: Row): ApiRecord => {
    const answer: Values = {};
    for (const [name, column] of names) answer[name] = row[column];
    return answer as ApiRecord;
  };
  // The version's schema validated the input: renamed, it is the stored table's input.
  const stored = (values: Values, base: Values = {}) => {
    const input: Values = { ...base };
    for (const [name, value] of Object.entries(values)) input[fields[name]!] = value;
    return input as Input;
  };
  // A query naming no field is passed on as it is (the whole table's is a constant, built once).
  const query = (list: ListQuery): ListQuery =>
    list.filters.length === 0 && list.sort.length === 0
      ? list
      : {
          ...list,
          filters: list.filters.map((filter) => ({ ...filter, field: fields[filter.field]! })),
          sort: list.sort.map((order) => ({ ...order, field: fields[order.field]! })),
        };
  // Each answer in the same tick when the table's is (SQLite without hooks), as the routes' are.
  const page = (list: ListQuery, primary?: boolean) =>
    after(table.page(query(list), primary), ({ records, ...rest }) => ({ records: records.map(record), ...rest }));
  return {
    page,
    /** The whole table after an id, a batch at a time: read as records, to answer them in the version's names. */
    batchAfter: (id: string | number, primary?: boolean) =>
      after(page({ ...WHOLE_TABLE, after: id }, primary), ({ records }) => jsonBatch(records)),
    find: (rawId: string, primary?: boolean) => after(table.find(rawId, primary), (found) => found && record(found)),
    create: (input: Values, request: FastifyRequest) => after(table.create(stored(input, defaults), request), record),
    update: (rawId: string, changes: Values, request: FastifyRequest) =>
      after(table.update(rawId, stored(changes), request), (updated) => updated && record(updated)),
    remove: (rawId: string, request: FastifyRequest) => table.remove(rawId, request),
  };
}
