import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSources, readManifestFile, readPrecompiled } from "../../src/cli/host.ts";
import { emitServer } from "../../src/emit/index.ts";
import { README, readmeContext } from "../../src/emit/readme.ts";
import { precompileTemplates, renderer, type Sources } from "../../src/emit/templates.ts";
import type { TemplatePath } from "../../src/targets/target.ts";
import { EXAMPLES, exampleTree, scratchDir } from "../helpers/generate.ts";

// `npm run build` compiles the templates ahead of time (dist/templates.json, precompileTemplates);
// the renderer uses that code while every template's text is the one it was compiled from.

const { templates, runtime, packageVersions } = loadSources();
/** The templates as they are read without a build, compiled as they render. */
const fromTexts: Sources = { templates, runtime, packageVersions };
const precompiled = precompileTemplates(templates);
/** The blog example's model, for the README's template. */
const { model } = readManifestFile(join(EXAMPLES, "blog.yaml"));

describe("precompiled templates", () => {
  it("are every .hbs template, made from its text", () => {
    const names = [...templates.keys()].filter((path) => path.endsWith(".hbs"));
    expect(Object.keys(precompiled.templates).sort()).toEqual(names.sort());
  });

  it.each(["blog", "crm", "tasks"])("generate the %s example's server byte for byte as the texts do", async (name) => {
    const { model, tree } = await exampleTree(name);
    const manifestName = `${name}.yaml`;
    const compiled = await emitServer(model, { manifestName, sources: fromTexts });
    const ahead = await emitServer(model, { manifestName, sources: { ...fromTexts, precompiled } });
    expect([...ahead]).toEqual([...compiled]);
    // The sources the CLI reads (with dist/templates.json after a build) make the same server.
    expect([...tree]).toEqual([...compiled]);
  });

  it("are used while every template's text is the one they were compiled from", () => {
    // README's code replaced by other code under the same hash: what renders is that code.
    const other = precompileTemplates(new Map([[README, "Precompiled for {{project}}."]])).templates[README]!;
    const swapped = { ...precompiled.templates, [README]: { ...precompiled.templates[README]!, spec: other.spec } };
    const render = renderer({ ...fromTexts, precompiled: { ...precompiled, templates: swapped } }, model.database);
    expect(render(README, readmeContext(model))).toBe("Precompiled for blog.");
  });

  it("are not used once a template's text changed since they were compiled: the texts are compiled instead", () => {
    const edited = new Map(templates);
    edited.set(README, `${templates.get(README)!}\nEdited since the build.\n`);
    const render = renderer({ ...fromTexts, templates: edited, precompiled }, model.database);
    expect(render(README, readmeContext(model))).toMatch(/Edited since the build\.\n$/);
  });

  it("leave a template tablegen does not have refused by name, as the texts do", () => {
    const missing = "server/missing.hbs" as TemplatePath<object>;
    for (const sources of [fromTexts, { ...fromTexts, precompiled }]) {
      expect(() => renderer(sources, model.database)(missing, {})).toThrow(
        "tablegen's templates have no server/missing.hbs",
      );
    }
  });

  it("are read from the build's file only when it is whole: a missing, cut-short or other file is none", async () => {
    const file = join(await scratchDir("precompiled"), "templates.json");
    expect(readPrecompiled(file)).toBeUndefined();
    const text = JSON.stringify(precompiled);
    for (const other of [text.slice(0, text.length / 2), "null", '{"templates": {}}']) {
      writeFileSync(file, other);
      expect(readPrecompiled(file)).toBeUndefined();
    }
    writeFileSync(file, text);
    expect(readPrecompiled(file)).toEqual(precompiled);
  });

  it("are not used when another Handlebars compiled them", () => {
    const other = { ...precompiled, handlebars: "0.0.0" };
    // Code that would say so if it ran: the renderer compiles the texts instead.
    const broken = Object.fromEntries(
      Object.entries(precompiled.templates).map(([path, { hash }]) => [path, { hash, spec: "{}" }]),
    );
    const render = renderer({ ...fromTexts, precompiled: { ...other, templates: broken } }, model.database);
    expect(render(README, readmeContext(model))).toContain("# blog");
  });
});
