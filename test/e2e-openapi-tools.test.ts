import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from "vitest";
import { UUID_EXAMPLES } from "../src/emit/examples.ts";
import { openApiDocument } from "../src/emit/openapi.ts";
import type { Model } from "../src/model/types.ts";
import { tableInVersion } from "../src/model/versions.ts";
import { tableNames } from "../src/targets/tables.ts";
import { REPO, scratchDir } from "./helpers/generate.ts";
import { client } from "./helpers/http.ts";
import { readModel } from "./helpers/manifest.ts";
import { readDocuments, ResponseValidator, type OpenApiDocument } from "./helpers/openapi.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Third-party tools driven by a generated server's OpenAPI documents alone (issue 31), offline:
// - portman (@apideck/portman, with newman) writes contract tests from each version's document, and
//   newman runs them against a fresh blog server holding one record per table: every operation of
//   every version passes (status, content type, JSON body, schema), with nothing given by hand but
//   the base URL and the key;
// - Prism (@stoplight/prism-cli) mocks each document: a request made of the document's examples is
//   accepted by its validator, and its answer validates against the document.
// The documents are the same for both databases, so the tools run against SQLite only.

const KEY = "tools-key-0123456789";
const BIN = join(REPO, "node_modules", ".bin");
/**
 * The tools' environment: no colours or telemetry, and offline: any request beyond loopback goes to a
 * proxy that is not there, and fails (none is made: the tools read local files and call the servers).
 */
const QUIET = {
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  DO_NOT_TRACK: "1",
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
  NO_PROXY: "127.0.0.1,localhost",
  no_proxy: "127.0.0.1,localhost",
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The seed the documents' examples describe: in each table, in an order where a record's references
 * come first, the record its schema's examples give (id 1, or the first example uuid), made through
 * the API of a version that serves the table; a uuid table also holds the second example uuid, the
 * record a delete's example removes (the server assigns a new record's uuid, so no create can make it).
 */
async function seed(
  model: Model,
  documents: Map<string, OpenApiDocument>,
  url: string,
  exec: (sql: string) => Promise<void>,
  expect: ExpectStatic,
) {
  const api = client(`${url}/${model.project}`, KEY);
  const seeded = new Set<string>();
  const pending = [...model.tables];
  while (pending.length > 0) {
    const index = pending.findIndex((table) =>
      table.fields.every(
        (field) =>
          !field.relation || field.relation.table === table.name || seeded.has(field.relation.table) || !field.required,
      ),
    );
    const table = pending.splice(index === -1 ? 0 : index, 1)[0]!;
    const version = table.versions.at(-1)!;
    const view = tableInVersion(table, version);
    const schemas = documents.get(version)!.components.schemas as Json;
    const record = schemas[tableNames(table.name).record];
    const body = (second: boolean) =>
      Object.fromEntries(
        view.fields.map((field) => {
          const example = record.properties[field.name].examples[0];
          if (field.relation && !seeded.has(field.relation.table)) return [field.name, null];
          // The second uuid record: unique fields hold other values than the first's and than a create's.
          return [field.name, second && field.unique ? secondSeedValue(example) : example];
        }),
      );
    for (const [ordinal, id] of table.id === "uuid"
      ? UUID_EXAMPLES.map((uuid, i) => [i, uuid] as const)
      : [[0, 1] as const]) {
      const answer = await api.post(`/${table.name}/${version}/create`, body(ordinal === 1));
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      const made = (answer.body as Json).data.id;
      if (table.id === "uuid") await exec(`UPDATE "${table.name}" SET id = '${id}' WHERE id = '${made}'`);
      else expect(made).toBe(id);
    }
    seeded.add(table.name);
  }
}

function secondSeedValue(example: unknown): unknown {
  if (typeof example === "string" && example.includes("@")) return `seed.${example}`;
  if (typeof example === "string") return `${example} (seed)`;
  return example;
}

describe("portman and newman against the blog server, from its documents alone", () => {
  let dir: string;
  let model: Model;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    ({ dir } = await sharedExample("blog"));
    model = await readModel(join(REPO, "examples", "blog.yaml"));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  for (const version of ["v1", "v2"]) {
    it.concurrent(`passes every contract test portman writes for ${version}`, async ({ expect }) => {
      const documents = readDocuments(dir);
      const database = await exampleDatabase("blog");
      const server = await startTranspiled(dir, { DATABASE_URL: database.url, API_SIGNATURE_KEY: KEY });
      servers.push(server);
      await seed(model, documents, server.url, (sql) => database.exec(sql), expect);

      const work = await scratchDir(`portman-${version}`);
      const collection = join(work, "collection.json");
      const converted = await execa(
        join(BIN, "portman"),
        ["--local", join(dir, "openapi", `${version}.json`), "--baseUrl", server.url, "--output", collection],
        { cwd: work, env: QUIET, reject: false },
      );
      expect(converted.exitCode, converted.stdout + converted.stderr).toBe(0);
      const report = join(work, "newman.json");
      const run = await execa(
        join(BIN, "newman"),
        [
          "run",
          collection,
          "--env-var",
          `apiKey=${KEY}`,
          "--reporters",
          "json",
          "--reporter-json-export",
          report,
          "--disable-unicode",
        ],
        { cwd: work, env: QUIET, reject: false },
      );
      const { run: result } = JSON.parse(await readFile(report, "utf8")) as Json;
      const failures = (result.failures as Json[]).map(
        (failure) => `${failure.source?.name}: ${failure.error?.test ?? ""} ${failure.error?.message}`,
      );
      expect(failures).toEqual([]);
      expect(run.exitCode).toBe(0);
      // Every operation of the version ran once, and passed portman's contract tests: a 2xx status,
      // JSON, and a body its answer's schema validates.
      const passed = new Set(
        (result.executions as Json[]).flatMap((execution) =>
          (execution.assertions as Json[]).filter((test) => !test.error).map((test) => test.assertion as string),
        ),
      );
      const operations = Object.entries(documents.get(version)!.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `[${method.toUpperCase()}]::${path.replace(/\{(\w+)\}/g, ":$1")}`),
      );
      expect(result.stats.requests).toEqual({ total: operations.length, pending: 0, failed: 0 });
      for (const operation of operations)
        for (const test of [
          "Status code is 2xx",
          "Content-Type is application/json",
          "Response has JSON Body",
          "Schema is valid",
        ])
          expect(passed, `${operation} - ${test}`).toContain(`${operation} - ${test}`);
    });
  }
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `prism mock` of a document, on loopback; resolves once it listens. */
async function startPrism(file: string): Promise<{ url: string; process: ResultPromise; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = execa(join(BIN, "prism"), ["mock", file, "--host", "127.0.0.1", "--port", String(port), "--errors"], {
    env: QUIET,
    reject: false,
    buffer: false,
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Prism is listening on")) resolve();
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`prism exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await child;
    },
  };
}

/** A request of an operation made of its document's examples alone: every parameter, and the body. */
function exampleRequest(document: OpenApiDocument, path: string, operation: Json) {
  const validator = new ResponseValidator([document]);
  const parameters = ((operation.parameters ?? []) as Json[]).map(
    (parameter) => validator.resolve(document, parameter) as Json,
  );
  const text = (value: unknown) => (Array.isArray(value) ? value.join(",") : String(value));
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(text(parameters.find((parameter) => parameter.name === name)!.example)),
  );
  const query = new URLSearchParams(
    parameters
      .filter((parameter) => parameter.in === "query")
      // An optional parameter's example is in its schema.
      .map((parameter) => [parameter.name, text(parameter.example ?? parameter.schema.examples[0])]),
  );
  const body = operation.requestBody?.content["application/json"].example;
  return { url: `${url}${query.size > 0 ? `?${query}` : ""}`, body };
}

describe("a Prism mock of each document", () => {
  const mocks: Awaited<ReturnType<typeof startPrism>>[] = [];

  afterAll(async () => {
    await Promise.all(mocks.map((mock) => mock.stop()));
  });

  it("accepts the examples of every operation and answers each with a body the document validates", async () => {
    const work = await scratchDir("prism");
    const blog = await readModel(join(REPO, "examples", "blog.yaml"));
    const every = await readModel(join(REPO, "test", "fixtures", "every-type.yaml"));
    const documents = [
      ...blog.versions.map((version) => openApiDocument(blog, version)),
      ...every.versions.map((version) => openApiDocument(every, version)),
    ] as OpenApiDocument[];
    const files = await Promise.all(
      documents.map(async (document, index) => {
        const file = join(work, `${index}.json`);
        await writeFile(file, JSON.stringify(document));
        return file;
      }),
    );
    mocks.push(...(await Promise.all(files.map(startPrism))));
    let checked = 0;
    for (const [index, document] of documents.entries()) {
      const validator = new ResponseValidator([document]);
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item) as [string, Json][]) {
          const { url, body } = exampleRequest(document, path, operation);
          const response = await fetch(`${mocks[index]!.url}${url}`, {
            method: method.toUpperCase(),
            headers: { "x-api-signature": KEY, ...(body !== undefined && { "content-type": "application/json" }) },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          const answered = {
            method,
            url: `http://127.0.0.1${url}`,
            status: response.status,
            headers: response.headers,
            text: await response.text(),
          };
          const where = `${(document.info as Json).title} ${method.toUpperCase()} ${url}`;
          expect(response.headers.get("sl-violations"), where).toBeNull();
          expect(response.status, `${where}: ${answered.text}`).toBeLessThan(300);
          expect(validator.problems(answered), where).toEqual([]);
          checked++;
        }
      }
    }
    const operations = documents.flatMap((document) => Object.values(document.paths).flatMap(Object.keys));
    expect(checked).toBe(operations.length);
  });
});
