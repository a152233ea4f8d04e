import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSources, readManifestFile } from "../../src/cli/host.ts";
import { format } from "prettier";
import { generatedHeader } from "../../src/emit/header.ts";
import { emitFiles, prettierConfig } from "../../src/emit/index.ts";
import { buildModel } from "../../src/model/build.ts";
import { DATABASES } from "../../src/manifest/schema.ts";
import { REPO } from "../helpers/generate.ts";

// The files a server gets as they are from tablegen's own sources (templates/server, src/runtime)
// skip the formatter when generated: this holds only because each is in prettier's layout already,
// with the header generation puts on it, whatever the manifest's name.

const sources = loadSources();
const config = prettierConfig(sources);
// The blog example, and a case whose fields differ between versions (it has src/http/versions.ts).
const manifests = ["examples/blog.yaml", "test/golden/cases/versions.yaml"].map(
  (file) => readManifestFile(join(REPO, file)).manifest,
);
const NAMES = ["blog.yaml", `${"a-manifest-with-a-rather-long-name-".repeat(4)}tablegen.yaml`];
/** Headed files prettier has been asked about already: a file both databases' servers get is asked about once. */
const checked = new Set<string>();

describe.each(DATABASES)("the files copied as they are into a %s server", (database) => {
  const emitted = manifests.map((manifest) => emitFiles(buildModel({ ...manifest, database }), sources));
  const files = new Map(emitted.flatMap(({ files }) => [...files]));
  const laidOut = new Set(emitted.flatMap(({ copied }) => [...copied]));

  it("are tablegen's own files, not rendered ones", () => {
    expect(laidOut.size).toBeGreaterThan(20);
    expect(laidOut).toContain("src/http/versions.ts");
    expect([...laidOut].filter((path) => /^src\/(tables|routes|schemas|queries)\/|README|openapi/.test(path))).toEqual(
      [],
    );
  });

  it.each(NAMES)("are what prettier makes of them, headed for %s", async (name) => {
    for (const path of laidOut) {
      const header = generatedHeader(path, name);
      const text = header ? `${header}\n${files.get(path)!}` : files.get(path)!;
      if (!/\.(ts|js|json|md)$/.test(path) || checked.has(`${path}\n${text}`)) continue;
      expect(await format(text, { ...config, filepath: path }), path).toBe(text);
      checked.add(`${path}\n${text}`);
    }
  });
});
