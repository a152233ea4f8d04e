import type { FastifyRequest } from "fastify";
import type { Db } from "./db.js";
import type { HookContext, TableHooks } from "./hooks.js";
import type { Transactions } from "./transaction.js";

type Awaitable<T> = T | Promise<T>;

/** The writes of a table module, which hooks surround. */
export interface TableWrites<Input, Row> {
  create(input: Input): Awaitable<Row>;
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
 * A table whose writes run with its hooks: each write, its hooks and what they write in one
 * transaction, the table's statements running on the transaction's connection (`tableOn`).
 */
export function withHooks<Input, Row, Id, Table extends TableWrites<Input, Row>>(
  table: Table,
  hooks: TableHooks<Input, Row, Id>,
  parseId: (rawId: string) => Id | undefined,
  transactions: Transactions,
  tableOn: (db: Db) => TableWrites<Input, Row>,
): Routed<Table> {
  const context = (request: FastifyRequest, db: HookContext["db"]): HookContext => ({
    version: versionOf(request),
    log: request.log,
    db,
  });
  return {
    ...table,
    create: (input: Input, request: FastifyRequest) =>
      transactions.run(async (db, handle) => {
        const hookContext = context(request, handle);
        const values = (await hooks.beforeCreate?.(input, hookContext)) ?? input;
        const record = await tableOn(db).create(values);
        await hooks.afterCreate?.(record, hookContext);
        return record;
      }),
    update: (rawId: string, changes: Partial<Input>, request: FastifyRequest) => {
      const id = parseId(rawId);
      if (id === undefined) return undefined;
      return transactions.run(async (db, handle) => {
        const hookContext = context(request, handle);
        const values = (await hooks.beforeUpdate?.(id, changes, hookContext)) ?? changes;
        const record = await tableOn(db).update(rawId, values);
        if (record !== undefined) await hooks.afterUpdate?.(record, hookContext);
        return record;
      });
    },
    remove: (rawId: string, request: FastifyRequest) => {
      const id = parseId(rawId);
      if (id === undefined) return false;
      return transactions.run(async (db, handle) => {
        const hookContext = context(request, handle);
        await hooks.beforeDelete?.(id, hookContext);
        const removed = await tableOn(db).remove(rawId);
        if (removed) await hooks.afterDelete?.(id, hookContext);
        return removed;
      });
    },
  } as Routed<Table>;
}

/**
 * A table as its routes use it. Without hooks anywhere, the table module itself, which pays
 * nothing; with hooks elsewhere, the table as the database's transactions need it (`waiting`);
 * with its own hooks, the table with them (`withHooks`), its statements on each transaction's
 * connection (`tableOn`, made once per connection).
 */
export function hooked<Input, Row, Id, Table extends TableWrites<Input, Row>>(
  transactions: Transactions | undefined,
  table: Table,
  hooks: TableHooks<Input, Row, Id> | undefined,
  parseId: (rawId: string) => Id | undefined,
  tableOn: (db: Db) => TableWrites<Input, Row>,
): Routed<Table> {
  // A table module's writes take no request: the one the routes give them goes unused.
  if (!transactions) return table as unknown as Routed<Table>;
  if (!hooks) return transactions.waiting(table);
  const made = new WeakMap<Db, TableWrites<Input, Row>>();
  const madeOn = (db: Db) => {
    let onDb = made.get(db);
    if (!onDb) made.set(db, (onDb = tableOn(db)));
    return onDb;
  };
  return withHooks(table, hooks, parseId, transactions, madeOn);
}
