import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

/** How long a migration waits for a write in progress to finish before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Prisma's adapter for Prisma's own migration engine (prisma.config.ts), so that migrations apply
 * to a database the server has open. The engine asks for `locking_mode=EXCLUSIVE` first, which
 * under WAL needs every other connection closed: the running server, even an idle reader. Each
 * migration is one `BEGIN IMMEDIATE` … `COMMIT` instead, which waits its turn for the write lock
 * (up to BUSY_TIMEOUT_MS) while the server's readers go on reading what is committed.
 */
export function migrationAdapter(url: string): PrismaBetterSQLite3 {
  const factory = new PrismaBetterSQLite3({ url, timeout: BUSY_TIMEOUT_MS });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const executeRaw = adapter.executeRaw.bind(adapter);
    adapter.executeRaw = (query) =>
      /^PRAGMA main\.locking_mode\s*=\s*EXCLUSIVE$/i.test(query.sql.trim()) ? Promise.resolve(0) : executeRaw(query);
    return adapter;
  };
  return factory;
}
