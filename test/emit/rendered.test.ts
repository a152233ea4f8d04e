import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { check } from "prettier";
import { describe, expect, it } from "vitest";
import { loadSources } from "../../src/cli/host.ts";
import { emitFiles, emitServer, prettierConfig } from "../../src/emit/index.ts";
import { DATABASES } from "../../src/manifest/schema.ts";
import { REPO } from "../helpers/generate.ts";
import { LENGTHS, modelOf, nameOf, renamed } from "../helpers/renamed.ts";

// Generation lays out what the templates write with one formatter pass (oxfmt, src/emit/format.ts),
// and a generated server promises prettier's layout (`npm run format` changes nothing). Prettier is
// the oracle: each example and one-feature case is generated again with every name it holds
// (project, tables, fields, queries, parameters) made 2, 24 and 63 characters long (everything on
// one line, some lines broken, most broken), on both databases, and prettier must find every file the
// formatter laid out already in its layout.

const sources = loadSources();
const config = prettierConfig(sources);
const MANIFESTS = [
  ...readdirSync(join(REPO, "examples")).map((file) => join(REPO, "examples", file)),
  ...readdirSync(join(REPO, "test/golden/cases"))
    .filter((file) => file.endsWith(".yaml"))
    .map((file) => join(REPO, "test/golden/cases", file)),
].filter((file) => file.endsWith(".yaml"));

/**
 * Texts prettier already found in its layout, by file type: many files come out the same for other
 * names or the other database (helpers, most JSON), and the same text gets the same verdict.
 */
const inLayout = new Set<string>();

describe.each(DATABASES)("the formatter's layout, on %s", (database) => {
  it.each(MANIFESTS.map((file) => file.slice(REPO.length)))(
    "is prettier's for %s, names of any length",
    async (file) => {
      const text = readFileSync(join(REPO, file), "utf8");
      let checked = 0;
      for (const length of LENGTHS) {
        const model = modelOf({ ...renamed(text, length), database });
        const { copied } = emitFiles(model, sources);
        const tree = await emitServer(model, { manifestName: `${nameOf(0, length)}.yaml`, sources });
        for (const [path, content] of tree) {
          if (copied.has(path) || !/\.(ts|json|md)$/.test(path)) continue;
          const key = `${path.slice(path.lastIndexOf("."))}\n${content}`;
          if (!inLayout.has(key)) {
            expect(await check(content, { ...config, filepath: path }), `${path}, names ${length} long`).toBe(true);
            inLayout.add(key);
          }
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    },
  );
});
