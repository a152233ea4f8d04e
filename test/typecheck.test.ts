import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO, generateExample } from "./helpers/generate.ts";

const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");
const PRISMA = join(REPO, "node_modules", "prisma", "build", "index.js");

describe.each(["blog", "tasks", "crm"])("the generated %s server", (example) => {
  it("type-checks under strict mode, with its Prisma Client generated", { timeout: 90_000 }, async () => {
    const { dir, model } = await generateExample(example);
    // Prisma needs a URL of the schema's provider, even to generate the client.
    const url = model.database === "sqlite" ? "file:./data.db" : "postgresql://localhost:5432/unused";
    await execa(process.execPath, [PRISMA, "generate"], { cwd: dir, env: { DATABASE_URL: url } });
    const result = await execa(process.execPath, [TSC, "--noEmit", "-p", "tsconfig.json"], { cwd: dir, reject: false });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
  });
});
