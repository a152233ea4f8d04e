import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { LONGEST } from "./sequencer.ts";

it("names test files that exist: a renamed or removed one would silently lose its place", () => {
  const missing = LONGEST.filter((path) => !existsSync(fileURLToPath(new URL(`../../${path}`, import.meta.url))));
  expect(missing).toEqual([]);
  expect(LONGEST.every((path) => path.endsWith(".test.ts"))).toBe(true);
});
