import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

const NAME = 19;
const TEXT = 25;

type Results = pg.QueryResult | pg.QueryResult[];
type Callback = (error: Error | null, result?: Results) => void;

/** Reports columns of type `name` as text, in a single or multi-statement result. */
function nameAsText(result: Results): Results {
  for (const { fields } of [result].flat()) {
    for (const field of fields ?? []) if (field.dataTypeID === NAME) field.dataTypeID = TEXT;
  }
  return result;
}

/**
 * Names the column of a NOT NULL failure the way Prisma's adapter reads one: it looks for the
 * `Key (…)` of the error's detail, which an `ALTER … SET NOT NULL` refused on existing nulls has
 * not (PostgreSQL gives the table and column as fields of the error instead).
 */
function nullColumnNamed(error: unknown): never {
  const failure = error as pg.DatabaseError;
  if (failure?.code === "23502" && failure.table && failure.column && !failure.detail)
    failure.detail = `Key (${failure.table}.${failure.column})`;
  throw error;
}

/**
 * Lets the migration command exit once its work is done. Prisma's schema engine (WebAssembly)
 * bounds its wait for the migration advisory lock with a 10 s timer that it never clears, and the
 * CLI exits only when nothing is left to wait for, so every run on PostgreSQL lasted 10 s longer
 * than its work. The process's timers no longer keep it alive; a wait that matters is a query in
 * flight, whose connection does.
 */
function exitWhenDone(): void {
  const schedule = globalThis.setTimeout;
  if (schedule.name === "unrefTimeout") return;
  globalThis.setTimeout = function unrefTimeout(...args: Parameters<typeof schedule>) {
    return schedule(...args).unref();
  } as typeof globalThis.setTimeout;
}

/**
 * Prisma's adapter for Prisma's own migration engine (prisma.config.ts, run by Prisma's CLI, which
 * exits when nothing is left to wait for: see exitWhenDone).
 */
export function migrationAdapter(connectionString: string): PrismaPg {
  exitWhenDone();
  return engineAdapter(connectionString);
}

/**
 * The adapter itself, for a process that runs the engine among other work (tablegen's own), with
 * no change to its timers. It refuses columns of PostgreSQL's `name` type, which the engine reads
 * from the system catalog (prisma/prisma#27403); its connections report them as text, which they
 * are. Its pool is closed with it, so the database has no session of it left once it is done.
 */
export function engineAdapter(connectionString: string): PrismaPg {
  const pool = new pg.Pool({ connectionString, allowExitOnIdle: true });
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<Results>;
    client.query = ((...args: unknown[]) => {
      const callback = typeof args.at(-1) === "function" ? (args.pop() as Callback) : undefined;
      const result = query(...args).then(nameAsText, nullColumnNamed);
      if (!callback) return result;
      result.then((value) => callback(null, value), callback);
    }) as typeof client.query;
  });
  return new PrismaPg(pool, { disposeExternalPool: true });
}
