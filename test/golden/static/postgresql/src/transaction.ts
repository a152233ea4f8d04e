import pg from "pg";
import type { Db } from "./db.js";
import type { Routed, TableWrites } from "./hooked.js";

/** The database as hooks get it: the transaction's pooled connection. */
export type TransactionDb = pg.PoolClient;

/** How a transaction runs its statements. */
export interface TransactionOptions {
  /**
   * Each statement behind a savepoint (the default), so that a failing one can be explained by
   * reading before the whole is rolled back; false: one round trip a statement, and a failing one
   * leaves the transaction unusable (a batch then runs again with them to explain it).
   */
  savepoints?: boolean;
}

/** Writes with hooks, and batches, each in a transaction on a pooled connection of its own. */
export function openTransactions(db: Db) {
  return {
    /** Runs `work` in a transaction; the table's statements are given a Db on its connection. */
    async run<T>(
      work: (db: Db, handle: TransactionDb) => Promise<T>,
      { savepoints = true }: TransactionOptions = {},
    ): Promise<T> {
      const client = await db.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const value = await work(savepoints ? onConnection(db, client) : direct(db, client), client);
        await client.query("COMMIT");
        return value;
      } catch (error) {
        await client.query("ROLLBACK").catch((failure: Error) => (broken = failure));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    /** A table without hooks: its writes need not wait for anything. */
    waiting: <Table extends TableWrites<never, unknown>>(table: Table) => table as unknown as Routed<Table>,
    close: () => undefined,
  };
}

export type Transactions = ReturnType<typeof openTransactions>;

/** The table's statements on the transaction's connection, as they are. */
function direct(db: Db, client: pg.PoolClient): Db {
  const query = <Row extends pg.QueryResultRow = pg.QueryResultRow>(statement: pg.QueryConfig) => {
    db.trace?.(statement);
    return client.query<Row>(statement);
  };
  // Reads inside a transaction are the transaction's: on the primary, seeing its own writes.
  return { ...db, query, read: query };
}

/**
 * The table's statements on the transaction's connection, each behind a savepoint: one that fails
 * (a constraint) is undone alone, so the failure can still be explained by reading, and the
 * transaction is then rolled back as a whole.
 */
function onConnection(db: Db, client: pg.PoolClient): Db {
  const query = async <Row extends pg.QueryResultRow = pg.QueryResultRow>(statement: pg.QueryConfig) => {
    db.trace?.(statement);
    await client.query("SAVEPOINT tablegen_statement");
    try {
      const result = await client.query<Row>(statement);
      await client.query("RELEASE SAVEPOINT tablegen_statement");
      return result;
    } catch (error) {
      if (error instanceof pg.DatabaseError) await client.query("ROLLBACK TO SAVEPOINT tablegen_statement");
      throw error;
    }
  };
  // Reads inside a transaction are the transaction's: on the primary, seeing its own writes.
  return { ...db, query, read: query };
}
