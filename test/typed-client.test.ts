import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { REPO, scratchDir } from "./helpers/generate.ts";
import { readDocuments } from "./helpers/openapi.ts";
import { startTranspiled } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// The typed-client recipe of the generated README, done for the blog example: openapi-typescript
// turns the server's openapi/<version>.json into types, openapi-fetch calls the server with them.
// test/fixtures/typed-client/blog-client.ts and the README's example must type-check under strict
// mode, and blog-client.ts, run against a live server, call every operation of both versions;
// wrong-types.ts must not type-check, on exactly the lines it marks.

const FIXTURES = join(REPO, "test", "fixtures", "typed-client");
const BIN = (path: string) => join(REPO, "node_modules", path);
const KEY = "typed-client-key-0123456789";
const postgresUrl = inject("postgresUrl");

let dir: string;
let serverDir: string;

beforeAll(async () => {
  ({ dir: serverDir } = await sharedExample("blog"));
  dir = await scratchDir("typed-client");
  // The README's command, for each version's document.
  await Promise.all(
    ["v1", "v2"].map((version) =>
      execa(process.execPath, [
        BIN("openapi-typescript/bin/cli.js"),
        join(serverDir, "openapi", `${version}.json`),
        "-o",
        join(dir, `blog-${version}.d.ts`),
      ]),
    ),
  );
  for (const file of ["blog-client.ts", "wrong-types.ts"]) await copyFile(join(FIXTURES, file), join(dir, file));
  // The generated README's own example, compiled with the rest.
  const readme = await readFile(join(serverDir, "README.md"), "utf8");
  const example = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;
  expect(example).toContain('import type { paths } from "./blog-v2.js";');
  await writeFile(join(dir, "readme-example.ts"), `${example}\nexport {};\n`);
  const compilerOptions = {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }, null, 2));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
});

describe("a typed client from the blog server's OpenAPI documents", () => {
  it("types every path, body, parameter and answer: the client compiles, and wrong types do not", async () => {
    const types = await readFile(join(dir, "blog-v1.d.ts"), "utf8");
    expect(types).toContain('"/blog/posts/v1/create"');
    expect(types).toContain('message: "Record created successfully."');

    const result = await execa(
      process.execPath,
      [BIN("typescript/bin/tsc"), "-p", "tsconfig.json", "--pretty", "false"],
      {
        cwd: dir,
        reject: false,
      },
    );
    const errors = result.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
    // The client and the README's example: no error at all.
    expect(errors.filter((line) => !line.startsWith("wrong-types.ts"))).toEqual([]);
    // The wrong calls: an error on each marked line, on no other.
    const source = (await readFile(join(dir, "wrong-types.ts"), "utf8")).split("\n");
    const marked = source.flatMap((line, index) => (/\/\/ error: /.test(line) ? [index + 1] : []));
    const failing = [...new Set(errors.map((line) => Number(/^wrong-types\.ts\((\d+),/.exec(line)?.[1])))];
    expect(marked).toHaveLength(10);
    expect(failing.sort((a, b) => a - b)).toEqual(marked);
    expect(errors.join("\n")).toMatch(
      /wrong-types\.ts\(9,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
    );
    expect(result.exitCode).toBe(2);
  });

  for (const database of ["sqlite", "postgresql"] as const) {
    it.skipIf(database === "postgresql" && !postgresUrl)(
      `calls every operation of both versions against a live server on ${database}`,
      async () => {
        const { dir: shared } = await sharedExample("blog", database);
        const db = await exampleDatabase("blog", database);
        const server = await startTranspiled(shared, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
        try {
          const run = await execa(process.execPath, ["--import", "tsx", "blog-client.ts"], {
            cwd: dir,
            env: { BLOG_URL: server.url, BLOG_KEY: KEY },
            reject: false,
          });
          expect(run.stderr).toBe("");
          expect(run.exitCode).toBe(0);
          const called = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[];
          const operations = [...readDocuments(shared).values()].flatMap((document) =>
            Object.entries(document.paths).flatMap(([path, item]) =>
              Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
            ),
          );
          expect(operations).toHaveLength(37);
          expect(called).toEqual([...operations].sort());
        } finally {
          await server.stop();
        }
      },
    );
  }
});

// Issue 15: a typed client follows its version: each version's document gives its own field names
// and fields, and a deprecated version's operations are marked so in the types.
describe("typed clients of versions that differ", () => {
  const types = async (version: string) =>
    (
      await execa(process.execPath, [
        BIN("openapi-typescript/bin/cli.js"),
        join(REPO, "test", "golden", "cases", "versions", "sqlite", "openapi", `${version}.json`),
      ])
    ).stdout;
  // The record's fields, without their doc comments (each field's example, since issue 31).
  const record = (text: string) =>
    /CustomersRecord: \{([^}]*)\}/
      .exec(text)![1]!
      .replace(/\/\*\*[\s\S]*?\*\//g, "")
      .replace(/\s+/g, " ")
      .trim();

  it("have each version's fields, under its names; v1's operations deprecated", async () => {
    const [v1, v2] = await Promise.all([types("v1"), types("v2")]);
    expect(record(v1)).toBe(
      "id: number; fullname: string; email: string; phone: string; status: string | null; legacy_code: string | null;",
    );
    expect(record(v2)).toBe(
      "id: number; name: string; email: string; phone: string; status: string | null; tier: number;",
    );
    expect(v1.match(/@deprecated/g)?.length).toBe(12); // the 10 table routes, the batch route and the document's own
    expect(v2).not.toContain("@deprecated");
  });
});
