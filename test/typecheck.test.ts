import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO } from "./helpers/generate.ts";
import { sharedExample } from "./helpers/shared-examples.ts";

const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");

const EXAMPLES = ["blog", "tasks", "crm"];

// The three shared examples are prepared side by side rather than one before each test.
beforeAll(async () => {
  await Promise.all(EXAMPLES.map((example) => sharedExample(example)));
});

describe.each(EXAMPLES)("the generated %s server", (example) => {
  // The shared example has its Prisma Client generated (by `prisma generate`, as `npm install` runs it).
  it("type-checks under strict mode, with its Prisma Client generated", async () => {
    const { dir } = await sharedExample(example);
    const result = await execa(process.execPath, [TSC, "--noEmit", "-p", "tsconfig.json"], { cwd: dir, reject: false });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
  });
});

describe("the generated run.js (npm start)", () => {
  it("type-checks as JavaScript (// @ts-check) under the server's strict options", async () => {
    const { dir } = await sharedExample("blog");
    const options = ["--strict", "--noUncheckedIndexedAccess", "--noUnusedLocals", "--noUnusedParameters"];
    const target = ["--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext"];
    const result = await execa(
      process.execPath,
      [TSC, "--noEmit", "--allowJs", "--checkJs", "--skipLibCheck", "--types", "node", ...options, ...target, "run.js"],
      { cwd: dir, reject: false },
    );
    expect(result.stdout + result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
  });
});
