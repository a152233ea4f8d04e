import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { check } from "prettier";
import { describe, expect, it } from "vitest";
import { loadSources, readManifestFile } from "../../src/cli/host.ts";
import { firstMigrationSql } from "../../src/emit/first-migration.ts";
import { generatedHeader } from "../../src/emit/header.ts";
import { emitFiles, emitServer, prettierConfig } from "../../src/emit/index.ts";
import { emitMigration, MIGRATIONS, migrationFolderName } from "../../src/emit/migration.ts";
import { emitPrismaSchema } from "../../src/emit/prisma-schema.ts";
import { DATABASES, type Database } from "../../src/manifest/schema.ts";
import { buildModel } from "../../src/model/build.ts";
import type { Model } from "../../src/model/types.ts";
import { targetFor } from "../../src/targets/index.ts";
import { describedModel, REPO } from "./generate.ts";

// What `tablegen generate` writes into a new server, for every example and every one-feature case on
// each database, is kept under test/golden/ as real files: the files rendered for the manifest under
// test/golden/<example>/ and test/golden/cases/<case>/<database>/, its first migration among them;
// the files every server gets as they are from tablegen's own sources (templates/server,
// src/runtime), the same whatever the manifest, once under test/golden/static/ (by their path in
// the server, under static/<database>/ for the database's own), without the header line that names
// the manifest. Refresh them with `npm run golden:update` (vitest -u), which also removes orphaned
// ones. test/golden.test.ts checks the examples and the static files, test/golden-cases.test.ts the
// cases, side by side.

export const GOLDEN = join(REPO, "test", "golden");
const CASES = join(GOLDEN, "cases");
const STATIC = join(GOLDEN, "static");
const updating = process.env.GOLDEN_UPDATE === "1";
const yamlNames = async (dir: string) =>
  (await readdir(dir)).filter((file) => file.endsWith(".yaml")).map((file) => file.slice(0, -5));
/** The first migration's folder in every fixture: generate names it after the time it runs. */
const FIRST_MIGRATION = migrationFolderName("init", [], new Date("2024-01-01T00:00:00Z"));

export interface Fixture {
  name: string;
  manifest: string;
  database?: Database;
  golden: string;
}

export const EXAMPLE_FIXTURES: Fixture[] = (await yamlNames(join(REPO, "examples"))).map((name) => ({
  name: `examples/${name}.yaml`,
  manifest: join(REPO, "examples", `${name}.yaml`),
  golden: join(GOLDEN, name),
}));

export const CASE_FIXTURES: Fixture[] = (await yamlNames(CASES)).flatMap((name) =>
  DATABASES.map((database) => ({
    name: `cases/${name}.yaml on ${database}`,
    manifest: join(CASES, `${name}.yaml`),
    database,
    golden: join(CASES, name, database),
  })),
);

/** The manifest generate reads for a fixture (moved to its database), and its name. */
function manifestOf({ manifest, database }: Fixture) {
  const { manifest: raw } = readManifestFile(manifest);
  return { written: database ? { ...raw, database } : raw, name: manifest.slice(manifest.lastIndexOf("/") + 1) };
}

interface Generated {
  database: Database;
  /** Every file generate writes into a new server, its first migration included. */
  files: Map<string, string>;
  /** Those copied as they are from tablegen's own sources, without their header. */
  copied: Map<string, string>;
  /** The rest: what the manifest makes. */
  rendered: Map<string, string>;
}

/** A fixture's server as `tablegen generate` writes it into a new directory, from its described model. */
async function generated(fixture: Fixture, model: Model): Promise<Generated> {
  const { written, name: manifestName } = manifestOf(fixture);
  const sources = loadSources();
  const tree = await emitServer(model, { manifestName, sources });
  // As generate writes it (src/cli/generate.ts): every fixture's is emitted from the model.
  const sql = firstMigrationSql(model);
  if (sql === undefined) throw new Error(`${manifestName}: its first migration would be Prisma's`);
  const migration = await emitMigration(
    { name: FIRST_MIGRATION, sql, schema: emitPrismaSchema(model), manifest: written },
    targetFor(model.database),
    true,
    sources,
  );
  const files = new Map([...tree, ...migration]);
  const { copied: copiedPaths } = emitFiles(model, sources);
  const copied = new Map<string, string>();
  const rendered = new Map<string, string>();
  for (const [path, content] of files) {
    if (!copiedPaths.has(path)) rendered.set(path, content);
    else copied.set(path, generatedHeader(path, manifestName) ? content.slice(content.indexOf("\n") + 1) : content);
  }
  return { database: model.database, files, copied, rendered };
}

async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** A file's text without its comments and blank lines: what a copy would share. */
const code = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .filter((line) => !/^\s*(\/\/.*)?$/.test(line))
    .join("\n");

/** Compares files with the golden ones under a folder, and fails on (or, updating, removes) orphaned ones. */
async function matchFolder(folder: string, files: ReadonlyMap<string, string>): Promise<void> {
  for (const [path, content] of files) await expect(content, path).toMatchFileSnapshot(join(folder, path));
  const orphans = (await filesUnder(folder)).filter((path) => !files.has(path));
  if (updating) for (const path of orphans) await rm(join(folder, path));
  else expect(orphans, "orphaned golden files: run npm run golden:update").toEqual([]);
}

/**
 * The files every server gets as they are, stored once: by their path in the server, under
 * static/<database>/ when they differ between the databases; each as its source (no header). Found
 * from what the emitters copy for every fixture, which neither the query check nor the formatter
 * touches.
 */
function staticFiles(fixtures: Fixture[]): Map<string, string> {
  const sources = loadSources();
  const byPath = new Map<string, Map<Database, string>>();
  for (const fixture of fixtures) {
    const model = buildModel(manifestOf(fixture).written);
    const { files, copied } = emitFiles(model, sources);
    for (const path of copied) {
      const contents = byPath.get(path) ?? new Map<Database, string>();
      byPath.set(path, contents.set(model.database, files.get(path)!));
    }
  }
  const stored = new Map<string, string>();
  for (const [path, contents] of byPath) {
    const distinct = new Set(contents.values());
    if (distinct.size === 1 && contents.size === DATABASES.length) stored.set(path, [...distinct][0]!);
    else for (const [database, content] of contents) stored.set(`${database}/${path}`, content);
  }
  return stored;
}

/** The golden file of a copied file: the database's own, or the one every server has. */
const staticPath = (database: Database, path: string, stored: ReadonlyMap<string, string>) =>
  stored.has(`${database}/${path}`) ? `${database}/${path}` : path;

/**
 * Texts prettier found in its layout, by file type: a file the same in other fixtures (the other
 * database's, most helpers) gets the same verdict.
 */
const inLayout = new Set<string>();

/** The tests of each fixture's golden files. */
export function goldenFixtures(fixtures: Fixture[]): void {
  const stored = staticFiles([...EXAMPLE_FIXTURES, ...CASE_FIXTURES]);
  describe.each(fixtures)("golden files of $name", (fixture) => {
    let model: Promise<Model> | undefined;
    let first: Promise<Generated> | undefined;
    /** The fixture's model, as generate's query check describes it, made once. */
    const described = () => (model ??= describedModel(manifestOf(fixture).written));
    /** The fixture's files generated once, for the tests that only read them. */
    const tree = () => (first ??= described().then((value) => generated(fixture, value)));

    it("match the generated tree file by file, its first migration included, with no orphan", async () => {
      const { rendered } = await tree();
      expect([...rendered.keys()]).toContain(`${MIGRATIONS}/${FIRST_MIGRATION}/tablegen.json`);
      await matchFolder(fixture.golden, rendered);
    });

    it("copies tablegen's own files as the static golden files hold them", async () => {
      const { database, copied } = await tree();
      for (const [path, content] of copied) {
        expect(content, path).toBe(stored.get(staticPath(database, path, stored)));
      }
    });

    it("is formatted: prettier --check passes every TypeScript, JSON and Markdown file", async () => {
      const config = prettierConfig(loadSources());
      const unformatted: string[] = [];
      // The files copied as they are pass it whatever the manifest is called (test/emit/laid-out.test.ts).
      for (const [path, content] of (await tree()).rendered) {
        if (!/\.(ts|json|md)$/.test(path)) continue;
        const key = `${path.slice(path.lastIndexOf("."))}\n${content}`;
        if (inLayout.has(key)) continue;
        if (await check(content, { ...config, filepath: path })) inLayout.add(key);
        else unformatted.push(path);
      }
      expect(unformatted).toEqual([]);
    });

    it("opens every file a user must not edit with the generated-file header", async () => {
      const headless = [...(await tree()).files]
        // Migrations are written once and kept as history, each file saying so in its own way.
        .filter(([path]) => !path.startsWith(`${MIGRATIONS}/`))
        .filter(
          ([path]) => !/(^|\/)(package\.json|\.prettierrc\.json|\.tablegen-files)$|^openapi\/v\d+\.json$/.test(path),
        )
        .filter(([, content]) => !/^(\/\/|#|<!--) Generated by tablegen from \S+: do not edit/.test(content))
        .map(([path]) => path);
      expect(headless).toEqual([]);
    });

    it("holds no copy: no two files share their code, comments aside", async () => {
      const seen = new Map<string, string>();
      const copies: string[] = [];
      // A migration keeps the Prisma schema it leads to: the first one's is the server's.
      for (const [path, content] of (await tree()).files) {
        if (path.startsWith(`${MIGRATIONS}/`)) continue;
        const key = code(content);
        const first = seen.get(key);
        if (first !== undefined && key.length > 0) copies.push(`${path} = ${first}`);
        seen.set(key, path);
      }
      expect(copies).toEqual([]);
    });

    it("is byte-identical when emitted twice", async () => {
      expect([...(await generated(fixture, await described())).files]).toEqual([...(await tree()).files]);
    });
  });
}

/** The test of the static golden files: every one is a file some server gets, as its source holds it. */
export function goldenStaticFiles(): void {
  describe("the files every server gets as they are", () => {
    it("are stored once under test/golden/static/, the database's own under static/<database>/", async () => {
      const stored = staticFiles([...EXAMPLE_FIXTURES, ...CASE_FIXTURES]);
      expect(stored.size).toBeGreaterThan(20);
      await matchFolder(STATIC, stored);
    });
  });
}
