import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type { ApplyMigrationsInput, SchemaEngine } from "@prisma/schema-engine-wasm";
import { UserError } from "../../errors.ts";

// Prisma's schema engine, in this process: the WebAssembly build that `prisma migrate diff` runs
// in its offline (JS engine) mode, published by Prisma as @prisma/schema-engine-wasm at the engine
// version of the Prisma CLI tablegen pins (test/cli/prisma.test.ts checks both are the same file).
// A diff through the CLI spends ~0.7 s of CPU starting Prisma's 2.7 MB bundle before the engine
// takes ~15 ms; here the engine is loaded once per process (~0.1 s) and each diff costs its own time.

const require = createRequire(import.meta.url);

type Glue = typeof import("@prisma/schema-engine-wasm/schema_engine_bg");

let loading: Promise<typeof SchemaEngine> | undefined;

/**
 * Where the engine's glue writes the message of a panic (a bug of the engine's own), as Prisma's CLI
 * keeps it; the panic itself is thrown as a RuntimeError, and the instance is not used again.
 */
const panics = {
  message: "",
  set_message(message: string) {
    this.message = message;
  },
};
(globalThis as { PRISMA_WASM_PANIC_REGISTRY?: typeof panics }).PRISMA_WASM_PANIC_REGISTRY ??= panics;

/**
 * The engine's class, its WebAssembly module compiled and started once. The package's entry imports
 * the .wasm file as an ES module, which Node 20 does not do without a flag: its JavaScript glue is
 * loaded and given an instance of the module, as Prisma's CLI does with the same two files.
 */
function schemaEngine(): Promise<typeof SchemaEngine> {
  loading ??= (async () => {
    const glue: Glue = await import("@prisma/schema-engine-wasm/schema_engine_bg");
    // The module beside the glue (the package exports no path to it).
    const glueFile = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const wasm = readFileSync(join(dirname(glueFile), "schema_engine_bg.wasm"));
    // The engine bounds waits (a migration lock) with timers it does not always clear: they must not
    // keep tablegen's process alive once its work is done, so its timers are unref'd; a wait that
    // matters is a query in flight, whose connection does.
    const imports: WebAssembly.ModuleImports = { ...(glue as unknown as WebAssembly.ModuleImports) };
    for (const name of Object.keys(imports).filter((key) => key.startsWith("__wbg_setTimeout_")))
      imports[name] = (callback: () => void, ms: number) => setTimeout(callback, ms >>> 0).unref();
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), { "./schema_engine_bg.js": imports });
    const exports = instance.exports as { __wbindgen_start: () => void };
    glue.__wbg_set_wasm(exports);
    exports.__wbindgen_start();
    return glue.SchemaEngine;
  })();
  return loading;
}

/** Where a schema was given: the name Prisma's messages show for it (`-->  to.prisma:13`). */
const datamodel = (path: string, content: string) => ({ tag: "schemaDatamodel" as const, files: [{ path, content }] });

/**
 * The SQL that takes a database from one Prisma schema (or nothing) to another, both given as
 * text: what `prisma migrate diff --from-… --to-schema-datamodel … --script` prints. A diff between
 * two schemas touches no database; the engine still asks for a driver adapter, so it is given an
 * in-memory SQLite one (for PostgreSQL schemas too: it is never queried for them).
 */
export async function diffSchemas(from: string | undefined, to: string): Promise<string> {
  const { PrismaBetterSQLite3 } = await import("@prisma/adapter-better-sqlite3");
  const result = await withEngine("migrate diff", undefined, new PrismaBetterSQLite3({ url: ":memory:" }), (engine) =>
    engine.diff({
      from: from === undefined ? { tag: "empty" } : datamodel("from.prisma", from),
      to: datamodel("to.prisma", to),
      shadowDatabaseUrl: null,
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    }),
  );
  return result.stdout ?? "";
}

/** Prisma's schema filter when nothing is left out (Prisma's own default). */
const NO_FILTERS = { externalTables: [], externalEnums: [] };

type AdapterFactory = Parameters<typeof bindMigrationAwareSqlAdapterFactory>[0];

/**
 * Runs one command of a new engine over a driver adapter, then frees the engine and closes every
 * connection it opened (the engine closes none: a SQLite connection left open would hold the
 * file's lock after a failed migration). A failure is thrown as `prisma <command> failed: …`, as
 * Prisma's CLI words it; a panic (a bug of the engine's own) also drops the instance, whose memory
 * is left as the panic found it, so that the next command starts a new one.
 */
async function withEngine<T>(
  command: string,
  schema: string | undefined,
  factory: AdapterFactory,
  run: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const [Engine, { bindMigrationAwareSqlAdapterFactory: bind }] = await Promise.all([
    schemaEngine(),
    import("@prisma/driver-adapter-utils"),
  ]);
  const opened: { dispose(): Promise<void> }[] = [];
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    opened.push(adapter);
    return adapter;
  };
  let engine: SchemaEngine | undefined;
  try {
    engine = await Engine.new(
      { datamodels: schema === undefined ? undefined : [["schema.prisma", schema]] },
      () => undefined,
      bind(factory),
    );
    return await run(engine);
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) {
      loading = undefined;
      engine = undefined;
      throw new UserError(`prisma ${command} failed: the schema engine stopped: ${panics.message || error.message}`);
    }
    throw new UserError(`prisma ${command} failed: ${engineError(error)}`);
  } finally {
    engine?.free();
    await Promise.all(opened.map((adapter) => adapter.dispose().catch(() => undefined)));
  }
}

/** The engine's error as Prisma's CLI prints it: its code first, without a backtrace. */
function engineError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // SQLITE_BUSY, which the adapter names in a way the engine does not know.
  if (error.message.includes("unknown variant `SocketTimeout`"))
    return "the database is locked by another process: a write held it for over 10 seconds";
  const code = (error as { code?: unknown }).code;
  const lines = error.message
    .split("\n")
    .filter((line) => !/^\s+(\d+: \S|with |at )/.test(line))
    .join("\n")
    .trim();
  // A schema's error keeps its lines (they show where it is); another's paragraphs make one line.
  const message = lines.includes("\n  --> ")
    ? lines
    : lines
        .split(/\n\s*\n/)
        .map((paragraph) => paragraph.trim().replace(/\s*\n\s*/g, " "))
        .map((paragraph) => (/[.:!?]$/.test(paragraph) ? paragraph : `${paragraph}.`))
        .join(" ");
  return typeof code === "string" ? `${code}: ${message}` : message;
}

/** The migrations folder as `prisma migrate deploy` lists it for the engine: its folders in name order, each's migration.sql. */
function migrationList(dir: string): ApplyMigrationsInput["migrationsList"] {
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return null;
    }
  };
  const folders = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort((a, b) => a.localeCompare(b))
    : [];
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: read(join(dir, "migration_lock.toml")) },
    shadowDbInitScript: "",
    migrationDirectories: folders.map((name) => {
      const sql = read(join(dir, name, "migration.sql"));
      return {
        path: name,
        migrationFile: {
          path: "migration.sql",
          content:
            sql === null
              ? { tag: "error" as const, value: `${name}/migration.sql cannot be read` }
              : { tag: "ok" as const, value: sql },
        },
      };
    }),
  };
}

/**
 * Applies a server's pending migrations to its database, as `prisma migrate deploy` does (the same
 * engine call, with the same list of folders), through the given driver adapter: the names of the
 * migrations applied. A failure is thrown as `prisma migrate deploy failed: <code>: <message>`.
 */
export async function applyMigrations(
  schema: string,
  migrationsDir: string,
  factory: AdapterFactory,
): Promise<string[]> {
  const { appliedMigrationNames } = await withEngine("migrate deploy", schema, factory, (engine) =>
    engine.applyMigrations({ migrationsList: migrationList(migrationsDir), filters: NO_FILTERS }),
  );
  return appliedMigrationNames;
}
