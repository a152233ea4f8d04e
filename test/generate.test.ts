import { existsSync } from "node:fs";
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO, scratchDir } from "./helpers/generate.ts";

// `tablegen generate` through the real CLI: what it writes, removes, leaves alone, and --check.

const tablegen = (args: string[], cwd: string) =>
  execa(process.execPath, [join(REPO, "bin/tablegen.js"), ...args], { cwd, reject: false });

const MANIFEST = `project: shop
tables:
  products:
    fields:
      name: { type: TEXT, required: true }
  orders:
    fields:
      product_id: { type: NUMBER, required: true, references: products }
`;

describe("tablegen generate", () => {
  it("writes the server and its first migration, then keeps it in step with the manifest", { timeout: 60_000 }, async () => {
    const dir = await scratchDir("cli-generate");
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST);

    const first = await tablegen(["generate"], dir);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Generated server: \d+ files written, 0 unchanged\nWrote the first migration: server\/prisma\/migrations\/\d{14}_init$/);
    const server = join(dir, "server");
    for (const path of ["package.json", "src/routes/v1/orders.ts", "src/tables/products.ts", "prisma/schema.prisma", "README.md"]) {
      expect(existsSync(join(server, path)), path).toBe(true);
    }
    const [migration] = (await readdir(join(server, "prisma/migrations"))).filter((name) => name.endsWith("_init"));
    const sql = await readFile(join(server, "prisma/migrations", migration!, "migration.sql"), "utf8");
    expect(sql).toContain('CREATE TABLE "orders"');
    expect(sql).toContain('FOREIGN KEY ("product_id") REFERENCES "products" ("id") ON DELETE RESTRICT');
    expect(await readFile(join(server, "prisma/migrations", migration!, "schema.prisma"), "utf8")).toBe(
      await readFile(join(server, "prisma/schema.prisma"), "utf8"),
    );

    expect((await tablegen(["generate", "--check"], dir)).exitCode).toBe(0);

    // A second run writes nothing, and no second migration.
    const second = await tablegen(["generate"], dir);
    expect(second.stdout).toMatch(/^Generated server: 0 files written, \d+ unchanged$/);
    expect((await readdir(join(server, "prisma/migrations"))).filter((name) => name.endsWith("_init"))).toHaveLength(1);

    // Dropping a table removes its files and nothing the user put there.
    await writeFile(join(server, "src/notes.ts"), "export const mine = true;\n");
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST.replace(/ {2}orders:[\s\S]*$/, ""));
    const third = await tablegen(["generate"], dir);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(third.stdout).toContain("removed (src/routes/v1/orders.ts, src/schemas/orders.ts, src/tables/orders.ts)");
    expect(existsSync(join(server, "src/tables/orders.ts"))).toBe(false);
    expect(existsSync(join(server, "src/notes.ts"))).toBe(true);
    expect(existsSync(join(server, "prisma/migrations", migration!, "migration.sql"))).toBe(true);
  });

  it("--check writes nothing and lists differing, missing and extra files with exit 1", { timeout: 60_000 }, async () => {
    const dir = await scratchDir("cli-check");
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST);
    const out = join(dir, "api");
    expect((await tablegen(["generate", "--out", "api"], dir)).exitCode).toBe(0);

    await writeFile(join(out, "src/app.ts"), "// edited by hand\n");
    await rm(join(out, "README.md"));
    await writeFile(join(dir, "tablegen.yaml"), MANIFEST.replace(/ {2}orders:[\s\S]*$/, ""));
    const listing = await readFile(join(out, ".tablegen-files"), "utf8");

    const check = await tablegen(["generate", "--check", "--out", "api"], dir);
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain("api is not what tablegen.yaml generates (10 files):");
    expect(check.stdout).toContain("  differs src/app.ts");
    expect(check.stdout).toContain("  missing README.md");
    expect(check.stdout).toContain("  extra   src/tables/orders.ts");
    expect(check.stdout).toContain('Run "tablegen generate" to update it.');
    expect(existsSync(join(out, "README.md"))).toBe(false);
    expect(await readFile(join(out, ".tablegen-files"), "utf8")).toBe(listing);
  });

  it("refuses an invalid manifest with exit 1 and writes nothing", async () => {
    const dir = await scratchDir("cli-invalid");
    await writeFile(join(dir, "tablegen.yaml"), "project: shop\ntables:\n  products:\n    fields:\n      name: STRNG\n");
    const result = await tablegen(["generate"], dir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("tablegen.yaml:5:13 tables.products.fields.name: unknown type");
    expect(existsSync(join(dir, "server"))).toBe(false);
  });
});
