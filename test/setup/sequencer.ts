import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest, most of it waiting on what they started (Chromium, servers killed
 * and restarted, PostgreSQL, Prism) or holding the CPU in one piece (prettier, TypeScript): started
 * first, in this order, so that they run beside the many short files rather than alone at the end.
 * The other files keep vitest's order: the durations of the last run when it has them, else file
 * size, as on a fresh clone (CI's), where these small files would come last.
 * (test/setup/sequencer.test.ts checks that each one exists.)
 */
export const LONGEST = [
  "test/studio/browser-sqlite.test.ts",
  "test/studio/browser-postgresql.test.ts",
  "test/e2e-resilience.test.ts",
  "test/e2e-custom.test.ts",
  "test/emit/rendered.test.ts",
  "test/e2e-openapi-tools.test.ts",
  "test/e2e-versions.test.ts",
  "test/typecheck.test.ts",
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST.findIndex((path) => file.moduleId.endsWith(path));
      return at < 0 ? LONGEST.length : at;
    };
    // Array sort is stable: the files of one rank keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
