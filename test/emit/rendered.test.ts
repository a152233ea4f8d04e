import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSources } from "../../src/cli/host.ts";
import { formatInThread, type FormatFiles } from "../../src/emit/format.ts";
import { emitFiles, emitServer, prettierConfig } from "../../src/emit/index.ts";
import { DATABASES } from "../../src/manifest/schema.ts";
import { REPO } from "../helpers/generate.ts";
import { LENGTHS, modelOf, nameOf, renamed } from "../helpers/renamed.ts";

// Templates write their TypeScript and Markdown, and the OpenAPI documents are written, in
// prettier's layout, and generation keeps such a file as written (TypeScript: when its code fits the
// print width, src/emit/code-layout.ts). That holds only if they are what prettier would write
// whatever the names: each example and one-feature case is generated again with every name it holds
// (project, tables, fields, queries, parameters) made 2, 9, 24, 40 and 63 characters long, on both
// databases, and each file kept as written must be what prettier makes of it. With names of 9
// characters or fewer, none may need prettier: that is what keeps generation fast.

const sources = loadSources();
const PARSERS: Record<string, string> = { ts: "babel-ts", json: "json", md: "markdown" };
const MANIFESTS = [
  ...readdirSync(join(REPO, "examples")).map((file) => join(REPO, "examples", file)),
  ...readdirSync(join(REPO, "test/golden/cases"))
    .filter((file) => file.endsWith(".yaml"))
    .map((file) => join(REPO, "test/golden/cases", file)),
].filter((file) => file.endsWith(".yaml"));
describe.each(DATABASES)("templates in prettier's layout, on %s", (database) => {
  it.each(MANIFESTS.map((file) => file.slice(REPO.length)))(
    "write %s as prettier would, names of any length",
    async (file) => {
      const text = readFileSync(join(REPO, file), "utf8");
      let kept = 0;
      for (const length of LENGTHS) {
        const model = modelOf({ ...renamed(text, length), database });
        const formatted = new Set<string>();
        const formatFiles: FormatFiles = (jobs, config) => {
          for (const job of jobs) formatted.add(job.path);
          return formatInThread(jobs, config);
        };
        const manifestName = `${nameOf(0, length)}.yaml`;
        const { rendered } = emitFiles(model, sources);
        const asWritten = await emitServer(model, { manifestName, sources, formatFiles });
        const pending = [...rendered].filter((path) => !formatted.has(path));
        const jobs = pending.map((path) => ({
          path,
          text: asWritten.get(path)!,
          parser: PARSERS[path.slice(path.lastIndexOf(".") + 1)]!,
        }));
        const config = prettierConfig(sources);
        const byPrettier = await formatInThread(jobs, config);
        jobs.forEach((job, index) => expect(job.text, `${job.path}, names ${length} long`).toBe(byPrettier[index]));
        if (length <= 9) expect([...formatted], `formatted by prettier, names ${length} long`).toEqual([]);
        kept += jobs.length;
      }
      expect(kept).toBeGreaterThan(0);
    },
  );
});
