import type { FastifyRequest } from "fastify";
import type { Db } from "./db.js";
import type { HookContext, TableHooks } from "./hooks.js";
import type { TransactionDb, Transactions } from "./transaction.js";

type Awaitable<T> = T | Promise<T>;

/** The writes of a table module, which hooks surround. */
export interface TableWrites<Input, Row> {
  create(input: Input): Awaitable<Row>;
  /** Many creates at once, in order (PostgreSQL: one statement). */
  createMany?(inputs: Input[]): Awaitable<Row[]>;
  update(rawId: string, changes: Partial<Input>): Awaitable<Row | undefined>;
  remove(rawId: string): Awaitable<boolean>;
}

/** A table as its routes use it: its writes are also given the request, for its hooks. */
export type Routed<Table extends TableWrites<never, unknown>> = Omit<Table, keyof TableWrites<never, unknown>> & {
  create(
    input: Parameters<Table["create"]>[0],
    request: FastifyRequest,
  ): Awaitable<Awaited<ReturnType<Table["create"]>>>;
  update(
    rawId: string,
    changes: Parameters<Table["update"]>[1],
    request: FastifyRequest,
  ): Awaitable<Awaited<ReturnType<Table["update"]>>>;
  remove(rawId: string, request: FastifyRequest): Awaitable<boolean>;
};

/** The API version of a table route's request: /<project>/<table>/<version>/... */
const versionOf = (request: FastifyRequest) => request.routeOptions.url!.split("/")[3]!;

/**
 * A table's writes inside a transaction already open (a batch's, or one of its own): its hooks, if
 * it has any, and its statements, on the transaction's connection (`db`; hooks get `handle`).
 */
export interface TransactionWrites<Input = never, Row = unknown> {
  create(db: Db, handle: TransactionDb, input: Input, request: FastifyRequest): Promise<Row>;
  /** Creates of a table without hooks, many at once (a batch's), in order. */
  createMany?(db: Db, inputs: Input[]): Promise<Row[]>;
  update(
    db: Db,
    handle: TransactionDb,
    rawId: string,
    changes: Partial<Input>,
    request: FastifyRequest,
  ): Promise<Row | undefined>;
  remove(db: Db, handle: TransactionDb, rawId: string, request: FastifyRequest): Promise<boolean>;
}

/** A table as the store has it: as its routes use it, and inside a transaction already open (batches). */
export type Stored<Table extends TableWrites<never, unknown>> = Routed<Table> & {
  inTransaction: TransactionWrites<Parameters<Table["create"]>[0], Awaited<ReturnType<Table["create"]>>>;
  /** The table's id from a path's text, as its records hold it (undefined when no record can have it). */
  parseId(rawId: string): unknown;
};

/** The writes of a table in a transaction already open, with its hooks around them if it has any. */
function transactionWrites<Input, Row, Id>(
  hooks: TableHooks<Input, Row, Id> | undefined,
  parseId: (rawId: string) => Id | undefined,
  tableOn: (db: Db) => TableWrites<Input, Row>,
): TransactionWrites<Input, Row> {
  const context = (request: FastifyRequest, db: HookContext["db"]): HookContext => ({
    version: versionOf(request),
    log: request.log,
    db,
  });
  return {
    ...(hooks === undefined && {
      async createMany(db: Db, inputs: Input[]) {
        const table = tableOn(db);
        if (table.createMany) return table.createMany(inputs);
        const rows: Row[] = [];
        for (const input of inputs) rows.push(await table.create(input));
        return rows;
      },
    }),
    async create(db, handle, input, request) {
      const hookContext = context(request, handle);
      const values = (await hooks?.beforeCreate?.(input, hookContext)) ?? input;
      const record = await tableOn(db).create(values);
      await hooks?.afterCreate?.(record, hookContext);
      return record;
    },
    async update(db, handle, rawId, changes, request) {
      const id = parseId(rawId);
      if (id === undefined) return undefined;
      const hookContext = context(request, handle);
      const values = (await hooks?.beforeUpdate?.(id, changes, hookContext)) ?? changes;
      const record = await tableOn(db).update(rawId, values);
      if (record !== undefined) await hooks?.afterUpdate?.(record, hookContext);
      return record;
    },
    async remove(db, handle, rawId, request) {
      const id = parseId(rawId);
      if (id === undefined) return false;
      const hookContext = context(request, handle);
      await hooks?.beforeDelete?.(id, hookContext);
      const removed = await tableOn(db).remove(rawId);
      if (removed) await hooks?.afterDelete?.(id, hookContext);
      return removed;
    },
  };
}

/**
 * A table whose writes run with its hooks: each write, its hooks and what they write in one
 * transaction, the table's statements running on the transaction's connection.
 */
function withHooks<Input, Row, Id, Table extends TableWrites<Input, Row>>(
  table: Table,
  parseId: (rawId: string) => Id | undefined,
  transactions: Transactions,
  inTransaction: TransactionWrites<Input, Row>,
): Routed<Table> {
  return {
    ...table,
    create: (input: Input, request: FastifyRequest) =>
      transactions.run((db, handle) => inTransaction.create(db, handle, input, request)),
    update: (rawId: string, changes: Partial<Input>, request: FastifyRequest) =>
      parseId(rawId) === undefined
        ? undefined
        : transactions.run((db, handle) => inTransaction.update(db, handle, rawId, changes, request)),
    remove: (rawId: string, request: FastifyRequest) =>
      parseId(rawId) === undefined
        ? false
        : transactions.run((db, handle) => inTransaction.remove(db, handle, rawId, request)),
  } as Routed<Table>;
}

/**
 * A table as the store has it. Without hooks, the table module itself, its writes waiting only
 * while a transaction of the database's is open (`waiting`: SQLite's shared connection must not
 * write into one); with hooks, the table with them (`withHooks`). Either way, its writes inside a
 * transaction already open (`inTransaction`: a batch's), on the transaction's connection
 * (`tableOn`, the table's statements made once per connection).
 */
export function hooked<Input, Row, Id, Table extends TableWrites<Input, Row>>(
  transactions: Transactions,
  table: Table,
  hooks: TableHooks<Input, Row, Id> | undefined,
  parseId: (rawId: string) => Id | undefined,
  tableOn: (db: Db) => TableWrites<Input, Row>,
): Stored<Table> {
  const made = new WeakMap<Db, TableWrites<Input, Row>>();
  const madeOn = (db: Db) => {
    let onDb = made.get(db);
    if (!onDb) made.set(db, (onDb = tableOn(db)));
    return onDb;
  };
  const inTransaction = transactionWrites(hooks, parseId, madeOn);
  const routed = hooks ? withHooks(table, parseId, transactions, inTransaction) : transactions.waiting(table);
  return { ...routed, inTransaction, parseId } as unknown as Stored<Table>;
}
