import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** The environment variable naming the run root: set by test/setup/run-root.ts, inherited by the test workers. */
export const RUN_ROOT_VARIABLE = "TABLEGEN_TEST_ROOT";

/**
 * A fresh run root: a directory under the OS temp dir whose node_modules links to the repository's,
 * so that generated servers inside it resolve their dependencies as a user's do after `npm install`.
 */
export function createRunRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tablegen-test-"));
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
  return root;
}

/**
 * The test run's root, where every scratch directory goes. Outside a vitest run (a script that
 * imports the helpers) the process makes its own, removed when it exits.
 */
export function runRoot(): string {
  const root = process.env[RUN_ROOT_VARIABLE];
  if (root) return root;
  const own = createRunRoot();
  process.env[RUN_ROOT_VARIABLE] = own;
  process.on("exit", () => rmSync(own, { recursive: true, force: true }));
  return own;
}
