import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { DescribedColumn } from "../targets/target.ts";
import { writeAtomically } from "./writer.ts";

// PostgreSQL's answers to the query check, kept between runs: a query's output columns, or the
// message refusing it, depend only on PostgreSQL (PGlite's version), the tables and the query's SQL.
// A `generate`, `migrate` or `ai` whose tables and queries were checked before, in any process,
// starts no PGlite (about a second of CPU); the kinds answered are worked out from the kept answers
// anew each time.

/** What PostgreSQL said of a query: its output columns, or its message refusing it. */
export type Described = { columns: DescribedColumn[] } | { error: string };

/** Answers kept for the tables and queries of one PostgreSQL (PGlite) version. */
export interface DescribedCache {
  get(schema: string, sql: string): Described | undefined;
  set(schema: string, sql: string, described: Described): void;
}

/** The environment variable naming the cache's folder; set to an empty value, no answer is kept. */
export const QUERY_CACHE_VARIABLE = "TABLEGEN_QUERY_CACHE";
/** Bumped when what an answer holds changes: answers kept by an earlier tablegen are then not read. */
const FORMAT = 1;
/** Past this many answers, the older half is removed (by the next check that keeps an answer). */
const KEPT = 1000;

/**
 * The cache of the answers of `version` (PGlite's), in $TABLEGEN_QUERY_CACHE or the OS's temporary
 * directory; none when the variable is empty or the folder is not the user's own and closed to
 * others (anyone who can write there could make a check answer what they like).
 */
export function describedCache(version: string): DescribedCache | undefined {
  const setting = process.env[QUERY_CACHE_VARIABLE];
  if (setting === "") return undefined;
  const dir = setting ?? join(tmpdir(), "tablegen-queries");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const folder = lstatSync(dir);
    if (!folder.isDirectory() || (folder.mode & 0o022) !== 0) return undefined;
    if (process.getuid && folder.uid !== process.getuid()) return undefined;
  } catch {
    return undefined;
  }
  const file = (schema: string, sql: string) => {
    const key = createHash("sha256").update(JSON.stringify([FORMAT, version, schema, sql]));
    return join(dir, `${key.digest("hex")}.json`);
  };
  // The folder is looked over once per check, at its first new answer, not at each one.
  let pruned = false;
  return {
    get(schema, sql) {
      try {
        return KEPT_ANSWER.safeParse(JSON.parse(readFileSync(file(schema, sql), "utf8"))).data;
      } catch {
        return undefined;
      }
    },
    set(schema, sql, described) {
      try {
        writeAtomically(file(schema, sql), JSON.stringify(described), 0o600);
        if (!pruned) prune(dir);
        pruned = true;
      } catch {
        // Only time is lost: the next check asks PostgreSQL again.
      }
    },
  };
}

/** An answer as `set` writes it: a kept file of any other shape is asked again. */
const KEPT_ANSWER = z.union([
  z.strictObject({
    columns: z.array(
      z.object({
        name: z.string(),
        typeId: z.number().optional(),
        table: z.string().nullish(),
        column: z.string().nullish(),
      }),
    ),
  }),
  z.strictObject({ error: z.string() }),
]);

/** Removes the older half of the answers once there are more than KEPT. */
function prune(dir: string): void {
  const names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  if (names.length <= KEPT) return;
  const dated = names.map((name) => ({
    name,
    time: statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0,
  }));
  dated.sort((a, b) => a.time - b.time);
  for (const { name } of dated.slice(0, names.length - KEPT / 2)) rmSync(join(dir, name), { force: true });
}
