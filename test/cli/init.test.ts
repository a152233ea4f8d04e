import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INIT_MANIFEST, defaultDatabaseUrl, init, newSignatureKey, projectNameFrom } from "../../src/cli/init.ts";
import { shownPath } from "../../src/cli/paths.ts";
import { loadSources } from "../../src/cli/host.ts";
import { renderer } from "../../src/emit/templates.ts";
import { UserError } from "../../src/errors.ts";
import { modelFromText, readModel } from "../helpers/manifest.ts";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tablegen-init-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The variables of a .env file. */
async function readEnv(path: string): Promise<Record<string, string>> {
  const text = await readFile(path, "utf8");
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"))
      .map((line) => {
        const at = line.indexOf("=");
        return [line.slice(0, at), line.slice(at + 1).replace(/^"(.*)"$/, "$1")];
      }),
  );
}

describe("tablegen init", () => {
  it("writes tablegen.yaml, .env and .gitignore", async () => {
    const written = await init(dir, { yes: true, name: "shop" }, false);
    expect(written).toEqual([join(dir, "tablegen.yaml"), join(dir, ".env"), join(dir, ".gitignore")]);
    expect(await readFile(join(dir, ".gitignore"), "utf8")).toBe(
      ".env\n*.db\n*.db-journal\n*.db-wal\n*.db-shm\nnode_modules/\n",
    );
  });

  it("writes a manifest that validates, with two related tables and a query", async () => {
    await init(dir, { yes: true, name: "shop" }, false);
    const model = await readModel(join(dir, "tablegen.yaml"));
    expect(model.project).toBe("shop");
    expect(model.database).toBe("sqlite");
    expect(model.versions).toEqual(["v1"]);
    expect(model.tables.map((table) => table.name)).toEqual(["authors", "books"]);
    const authorId = model.tables[1]!.fields.find((field) => field.name === "author_id");
    expect(authorId?.relation).toMatchObject({ table: "authors", onDelete: "cascade" });
    expect(model.tables[0]!.referencedBy).toEqual([{ table: "books", field: "author_id", onDelete: "cascade" }]);
    expect(model.queries.map((query) => [query.name, query.params.map((param) => param.name)])).toEqual([
      ["books_by_author", ["author_id"]],
    ]);
  });

  it("writes a .env with a fresh 32-byte base64url key and the database URL, readable by the owner only", async () => {
    await init(dir, { yes: true, name: "shop" }, false);
    const env = await readEnv(join(dir, ".env"));
    expect(Object.keys(env)).toEqual(["API_SIGNATURE_KEY", "DATABASE_URL"]);
    expect(env.API_SIGNATURE_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(env.API_SIGNATURE_KEY!, "base64url")).toHaveLength(32);
    expect(env.DATABASE_URL).toBe("file:./data.db");
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o600);
  });

  it("draws a different key each time", async () => {
    const other = join(dir, "other");
    await init(dir, { yes: true, name: "one" }, false);
    await init(other, { yes: true, name: "two" }, false);
    const first = (await readEnv(join(dir, ".env"))).API_SIGNATURE_KEY;
    const second = (await readEnv(join(other, ".env"))).API_SIGNATURE_KEY;
    expect(first).not.toBe(second);
    expect(newSignatureKey()).not.toBe(newSignatureKey());
  });

  it("respects --name and --db", async () => {
    await init(dir, { yes: true, name: "my-shop", db: "postgresql" }, false);
    const model = await readModel(join(dir, "tablegen.yaml"));
    expect(model.project).toBe("my-shop");
    expect(model.database).toBe("postgresql");
    expect((await readEnv(join(dir, ".env"))).DATABASE_URL).toBe("postgresql://postgres@localhost:5432/my_shop");
  });

  it("derives the project name from the directory name", async () => {
    const target = join(dir, "My App_2");
    await init(target, { yes: true }, false);
    expect((await readModel(join(target, "tablegen.yaml"))).project).toBe("my-app-2");
  });

  it("creates the directory when it does not exist", async () => {
    const target = join(dir, "a", "b", "shop");
    await init(target, { yes: true }, false);
    expect((await readModel(join(target, "tablegen.yaml"))).project).toBe("shop");
  });

  it("leaves no directory behind when it stops before writing (issue 16)", async () => {
    const target = join(dir, "new", "deeper");
    await expect(init(target, { yes: true, name: "My Shop" }, false)).rejects.toThrow(UserError);
    expect(existsSync(join(dir, "new"))).toBe(false);
  });

  it("refuses a directory that cannot be made, at once", async () => {
    await expect(init("/proc/nope", { yes: true }, false)).rejects.toThrow(
      new UserError("cannot create directory /proc/nope: no such file or directory (ENOENT)"),
    );
  });

  it("uses the defaults when stdin is not a terminal, even without --yes", async () => {
    await init(dir, { name: "shop" }, false);
    expect((await readModel(join(dir, "tablegen.yaml"))).tables).toHaveLength(2);
  });

  it("refuses an invalid --name", async () => {
    await expect(init(dir, { yes: true, name: "My Shop" }, false)).rejects.toThrow(
      new UserError(
        '--name: "My Shop" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
      ),
    );
    await expect(readFile(join(dir, "tablegen.yaml"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses an unknown --db", async () => {
    await expect(init(dir, { yes: true, name: "shop", db: "mysql" }, false)).rejects.toThrow(
      new UserError('--db must be one of sqlite, postgresql, not "mysql"'),
    );
  });

  it("refuses to overwrite an existing tablegen.yaml without --force", async () => {
    await writeFile(join(dir, "tablegen.yaml"), "mine\n");
    await expect(init(dir, { yes: true, name: "shop" }, false)).rejects.toThrow(
      new UserError(`${join(dir, "tablegen.yaml")} already exists; use --force to overwrite it`),
    );
    expect(await readFile(join(dir, "tablegen.yaml"), "utf8")).toBe("mine\n");
    await expect(readFile(join(dir, ".env"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses to overwrite an existing .env or write beside a tablegen.json without --force", async () => {
    await writeFile(join(dir, ".env"), "SECRET=1\n");
    await expect(init(dir, { yes: true, name: "shop" }, false)).rejects.toThrow(
      new UserError(`${join(dir, ".env")} already exists; use --force to overwrite it`),
    );
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("SECRET=1\n");

    const other = join(dir, "other");
    await mkdir(other);
    await writeFile(join(other, "tablegen.json"), "{}");
    await expect(init(other, { yes: true, name: "shop" }, false)).rejects.toThrow(
      new UserError(`${join(other, "tablegen.json")} already exists; use --force to overwrite it`),
    );
  });

  it("shows paths relative to the working directory when they are inside it", () => {
    expect(shownPath(join(process.cwd(), "tablegen.yaml"))).toBe("tablegen.yaml");
    expect(shownPath(join(process.cwd(), "app", ".env"))).toBe(join("app", ".env"));
    expect(shownPath(process.cwd())).toBe(process.cwd());
    expect(shownPath(join(dir, ".env"))).toBe(join(dir, ".env"));
  });

  it("overwrites tablegen.yaml and .env with --force", async () => {
    await writeFile(join(dir, "tablegen.yaml"), "mine\n");
    await writeFile(join(dir, ".env"), "SECRET=1\n", { mode: 0o644 });
    await init(dir, { yes: true, name: "shop", force: true }, false);
    expect((await readModel(join(dir, "tablegen.yaml"))).project).toBe("shop");
    expect(Object.keys(await readEnv(join(dir, ".env")))).toEqual(["API_SIGNATURE_KEY", "DATABASE_URL"]);
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o600);
  });

  it("keeps an existing .gitignore, adding the lines it lacks", async () => {
    await writeFile(join(dir, ".gitignore"), "dist\nnode_modules/");
    const written = await init(dir, { yes: true, name: "shop" }, false);
    expect(written).toContain(join(dir, ".gitignore"));
    expect(await readFile(join(dir, ".gitignore"), "utf8")).toBe(
      "dist\nnode_modules/\n.env\n*.db\n*.db-journal\n*.db-wal\n*.db-shm\n",
    );

    const other = join(dir, "other");
    await mkdir(other);
    const complete = ".env\n*.db\n*.db-journal\n*.db-wal\n*.db-shm\nnode_modules/\nextra\n";
    await writeFile(join(other, ".gitignore"), complete);
    expect(await init(other, { yes: true, name: "shop" }, false)).not.toContain(join(other, ".gitignore"));
    expect(await readFile(join(other, ".gitignore"), "utf8")).toBe(complete);
  });

  it("refuses --ai without an API key, before writing anything (test/ai/ covers the AI generator)", async () => {
    const key = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      await expect(init(dir, { ai: "a library" }, false)).rejects.toThrow(
        new UserError(
          "OPENAI_API_KEY is not set: the AI generator needs an API key (OPENAI_BASE_URL points it at any OpenAI-compatible server)",
        ),
      );
    } finally {
      if (key !== undefined) process.env.OPENAI_API_KEY = key;
    }
    expect(existsSync(join(dir, "tablegen.yaml"))).toBe(false);
  });
});

describe("the init templates", () => {
  it("write a valid manifest without the example tables", () => {
    const text = renderer(loadSources())(INIT_MANIFEST, { project: "app", database: "sqlite", example: false });
    const model = modelFromText("tablegen.yaml", text);
    expect(model.tables.map((table) => [table.name, table.fields.map((field) => field.name)])).toEqual([
      ["items", ["name", "created_at"]],
    ]);
    expect(model.queries).toEqual([]);
  });
});

describe("projectNameFrom", () => {
  it("turns a directory name into a project name", () => {
    expect(projectNameFrom("My App")).toBe("my-app");
    expect(projectNameFrom("shop_api")).toBe("shop-api");
    expect(projectNameFrom("2024 Blog!")).toBe("blog");
    expect(projectNameFrom("---")).toBe("app");
    expect(projectNameFrom("x".repeat(80))).toBe("x".repeat(63));
  });
});

describe("defaultDatabaseUrl", () => {
  it("is a local file for sqlite and a local database named after the project for postgresql", () => {
    expect(defaultDatabaseUrl("sqlite", "my-app")).toBe("file:./data.db");
    expect(defaultDatabaseUrl("postgresql", "my-app")).toBe("postgresql://postgres@localhost:5432/my_app");
  });
});
