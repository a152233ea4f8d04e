import { connect, lockTimeout, unlocked, type Db } from "./db.js";
import type { Routed, TableWrites } from "./hooked.js";

/** The database as hooks get it: the transaction's connection. */
export type TransactionDb = Db;

/**
 * Writes with hooks, each in a transaction of its own. better-sqlite3 is synchronous and the
 * server shares one connection, so a transaction that waits for an async hook must not be on it
 * (every other request's statements would run inside it): hooked writes get a connection of their
 * own and run one at a time; under WAL the shared connection keeps reading what is committed,
 * and its writes wait until no hooked write is open (it would otherwise wait for the lock,
 * blocking the server).
 */
export function openTransactions(db: Db) {
  const connection = connect(db.name, lockTimeout(db));

  let last: Promise<unknown> = Promise.resolve();
  let open = 0;
  return {
    /**
     * Runs `work` in a transaction on the hooked writes' connection, after those before it (the
     * options are PostgreSQL's: a failing statement leaves a SQLite transaction usable).
     */
    run<T>(work: (db: Db, handle: TransactionDb) => Promise<T>, _options?: { savepoints?: boolean }): Promise<T> {
      open++;
      const result = last.then(async () => {
        // The write lock, waited for (another process may hold it) with the event loop free.
        await unlocked(connection, () => connection.exec("BEGIN IMMEDIATE"));
        try {
          const value = await work(connection, connection);
          connection.exec("COMMIT");
          return value;
        } catch (error) {
          if (connection.inTransaction) connection.exec("ROLLBACK");
          throw error;
        } finally {
          open--;
        }
      });
      last = result.catch(() => undefined);
      return result;
    },
    /** A table without hooks, whose writes on the shared connection wait for the hooked ones. */
    waiting<Table extends TableWrites<never, unknown>>(table: Table): Routed<Table> {
      // At once when no transaction is open, as the table module answers (in the same tick).
      const idle = <T>(write: () => T) => (open > 0 ? last.then(write) : write());
      return {
        ...table,
        create: (input: Parameters<Table["create"]>[0]) => idle(() => table.create(input)),
        update: (rawId: string, changes: Parameters<Table["update"]>[1]) => idle(() => table.update(rawId, changes)),
        remove: (rawId: string) => idle(() => table.remove(rawId)),
      } as Routed<Table>;
    },
    close: () => connection.close(),
  };
}

export type Transactions = ReturnType<typeof openTransactions>;
