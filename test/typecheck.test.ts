import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedExample } from "./helpers/shared-examples.ts";
import { typeCheck, typeCheckFiles } from "./helpers/typecheck.ts";

const EXAMPLES = ["blog", "tasks", "crm"];

// The three shared examples are prepared side by side rather than one before each test.
beforeAll(async () => {
  await Promise.all(EXAMPLES.map((example) => sharedExample(example)));
});

describe.each(EXAMPLES)("the generated %s server", (example) => {
  // The shared example has its Prisma Client generated (by `prisma generate`, as `npm install` runs it).
  it("type-checks under strict mode, with its Prisma Client generated", async () => {
    const { dir } = await sharedExample(example);
    expect(typeCheck(join(dir, "tsconfig.json"))).toEqual([]);
  });
});

describe("the generated run.js (npm start)", () => {
  it("type-checks as JavaScript (// @ts-check) under the server's strict options", async () => {
    const { dir } = await sharedExample("blog");
    const errors = typeCheckFiles(dir, ["run.js"], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      skipLibCheck: true,
      types: ["node"],
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    expect(errors).toEqual([]);
  });
});
