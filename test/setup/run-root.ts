import { join } from "node:path";
import { QUERY_CACHE_VARIABLE } from "../../src/cli/described-cache.ts";
import { RUN_ROOT_VARIABLE, createRunRoot } from "../helpers/run-root.ts";
import { watchdog } from "../helpers/watchdog.ts";

// One scratch root for the whole run, under the OS temp dir; the test workers inherit its name
// through the environment. Removed at the end, however the run ends (a watchdog removes it when
// the run is killed), unless TABLEGEN_KEEP_TEST_ROOT=1 asks to keep it for a look at what a
// failing test left behind.
export default function setup() {
  // Both tiers set it up: the first one of a run makes the root, and removes it.
  if (process.env[RUN_ROOT_VARIABLE]) return;
  const root = createRunRoot();
  process.env[RUN_ROOT_VARIABLE] = root;
  // PostgreSQL's answers to the query checks are kept for the run alone (src/cli/described-cache.ts):
  // each run asks PGlite afresh, once per tables and query.
  process.env[QUERY_CACHE_VARIABLE] = join(root, "query-cache");
  // The Prisma processes of the run (Prisma Client generation, a server's npm run migrate) start no
  // update check of their own: a process more each, and a request to the network.
  process.env.CHECKPOINT_DISABLE = "1";
  process.env.PRISMA_HIDE_UPDATE_MESSAGE = "1";
  if (process.env.TABLEGEN_KEEP_TEST_ROOT === "1") {
    return () => console.log(`\n[tablegen] test output kept in ${root}\n`);
  }
  const cleanup = watchdog({ remove: root });
  return () => cleanup.stop();
}
