import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSources, readManifestFile } from "../../src/cli/host.ts";
import { README, readmeContext } from "../../src/emit/readme.ts";
import { SCHEMAS, schemasContext } from "../../src/emit/schemas.ts";
import { renderer } from "../../src/emit/templates.ts";
import { REPO } from "../helpers/generate.ts";

// Every template is rendered with the context its path is typed with (`templatePath<Context>`,
// src/targets/target.ts): `tsc -p tsconfig.json`, which compiles this file, fails unless each
// `@ts-expect-error` line below is an error, so a context of another shape cannot reach a template.

const { model } = readManifestFile(join(REPO, "examples", "blog.yaml"));
const render = renderer(loadSources(), model.database);

describe("typed templates", () => {
  it("render the context built for them", () => {
    expect(render(README, readmeContext(model))).toContain("# blog");
    expect(render(SCHEMAS, schemasContext(model.tables[0]!))).toContain("export type");
  });

  it("refuse, at type check, a context whose property was renamed where it is built", () => {
    const { firstTable, ...rest } = readmeContext(model);
    // @ts-expect-error: README.md.hbs reads firstTable; a context that calls it firstTableName is no ReadmeContext
    const renamed = () => render(README, { ...rest, firstTableName: firstTable });
    // Handlebars, strict, refuses it too when it runs; tsc refuses it before.
    expect(renamed).toThrow(/"firstTable" not defined/);
  });

  it("refuse, at type check, another template's context or a bare path", () => {
    const table = schemasContext(model.tables[0]!);
    // @ts-expect-error: the README's template takes a ReadmeContext, not a table's schemas
    expect(() => render(README, table)).toThrow();
    // @ts-expect-error: a path that is not typed with a context renders nothing
    expect(render("server/schemas.ts.hbs", table)).toContain("export type");
  });

  it("name every template of templates/ with a context type in src/", () => {
    const templates = readdirSync(join(REPO, "templates"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".hbs") && !entry.parentPath.endsWith("partials"))
      .map((entry) => relative(join(REPO, "templates"), join(entry.parentPath, entry.name)));
    const sources = readdirSync(join(REPO, "src"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
      .join("\n");
    const typed = new Set([...sources.matchAll(/templatePath<[^>]+>\("([^"]+)"\)/g)].map((match) => match[1]!));
    expect(templates.length).toBeGreaterThan(10);
    expect(templates.filter((path) => !typed.has(path))).toEqual([]);
  });
});
