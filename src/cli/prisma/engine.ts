import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";
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
    const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), { "./schema_engine_bg.js": glue });
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
  const [Engine, { PrismaBetterSQLite3 }, { bindMigrationAwareSqlAdapterFactory }] = await Promise.all([
    schemaEngine(),
    import("@prisma/adapter-better-sqlite3"),
    import("@prisma/driver-adapter-utils"),
  ]);
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaBetterSQLite3({ url: ":memory:" }));
  let engine: SchemaEngine | undefined;
  try {
    engine = await Engine.new({ datamodels: undefined }, () => undefined, adapter);
    const result = await engine.diff({
      from: from === undefined ? { tag: "empty" } : datamodel("from.prisma", from),
      to: datamodel("to.prisma", to),
      shadowDatabaseUrl: null,
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout ?? "";
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) {
      // A panic: the engine's memory is left as the panic found it, so the next diff starts a new instance.
      loading = undefined;
      engine = undefined;
      throw new UserError(`prisma migrate diff failed: the schema engine stopped: ${panics.message || error.message}`);
    }
    throw new UserError(`prisma migrate diff failed: ${engineError(error)}`);
  } finally {
    engine?.free();
  }
}

/** The engine's error as Prisma's CLI prints it: its code first, without a backtrace. */
function engineError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const message = error.message
    .split("\n")
    .filter((line) => !/^\s+(\d+: \S|with |at )/.test(line))
    .join("\n")
    .trim();
  return typeof code === "string" ? `${code}: ${message}` : message;
}
