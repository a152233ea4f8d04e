import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { freePort } from "../helpers/postgres.ts";

// The errors of `tablegen migrate` that need no database, each with its exact message.

const tablegen = (args: string[], cwd: string, env: Record<string, string> = { DATABASE_URL: "" }) =>
  execa(process.execPath, [join(REPO, "bin/tablegen.js"), ...args], { cwd, reject: false, env });

const MANIFEST = "project: shop\ntables:\n  items:\n    fields:\n      name: TEXT\n";

describe("tablegen migrate refuses", () => {
  it("a PostgreSQL project without DATABASE_URL", async () => {
    const dir = await scratchDir("migrate-no-url");
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST.replace("tables:", "database: postgresql\ntables:"));
    expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
    const result = await tablegen(["migrate"], dir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      "tablegen: DATABASE_URL is not set, in the environment or in the .env beside the manifest",
    );
  });

  it("a database it cannot reach, in one line, writing nothing", async () => {
    const dir = await scratchDir("migrate-unreachable");
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST.replace("tables:", "database: postgresql\ntables:"));
    expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
    const port = await freePort(); // nothing listens on it
    const result = await tablegen(["migrate"], dir, { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/shop` });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `tablegen: no migration was applied: Can't reach database server at \`127.0.0.1:${port}\`. ` +
        `Please make sure your database server is running at \`127.0.0.1:${port}\`.`,
    );
    expect(await readdir(join(dir, "server/prisma/migrations"))).toHaveLength(2);
  });

  it("migration history it cannot compare with: the latest migration without tablegen.json", async () => {
    const dir = await scratchDir("migrate-no-snapshot");
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST);
    expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
    const [init] = (await readdir(join(dir, "server/prisma/migrations"))).filter((name) => name.endsWith("_init"));
    await rm(join(dir, "server/prisma/migrations", init!, "tablegen.json"));
    const result = await tablegen(["migrate", "--create-only"], dir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `tablegen: server: the latest migration, ${init}, has no tablegen.json to compare the manifest with`,
    );
  });
});
