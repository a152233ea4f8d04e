import { rmSync } from "node:fs";
import { RUN_ROOT_VARIABLE, createRunRoot } from "../helpers/run-root.ts";

// One scratch root for the whole run, under the OS temp dir; the test workers inherit its name
// through the environment. Removed at the end, unless TABLEGEN_KEEP_TEST_ROOT=1 asks to keep it
// for a look at what a failing test left behind.
export default function setup() {
  const root = createRunRoot();
  process.env[RUN_ROOT_VARIABLE] = root;
  return () => {
    if (process.env.TABLEGEN_KEEP_TEST_ROOT === "1") console.log(`\n[tablegen] test output kept in ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  };
}
