import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { REPO } from "./helpers/generate.ts";
import { client, failure, type Client } from "./helpers/http.ts";
import { compiledSchema, readDocuments } from "./helpers/openapi.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// The OpenAPI documents and the API reference page of the generated blog server, over real HTTP on
// both databases: GET /blog/<version>/openapi.json behind the key like everything else, and with
// API_DOCS=on the page at /blog/docs (Swagger UI, served from the server's own swagger-ui-dist)
// and the documents without the key.

const KEY = "docs-key-0123456789";
const postgresUrl = inject("postgresUrl");
const SWAGGER_UI = join(REPO, "node_modules", "swagger-ui-dist");

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`the blog server's API documents on ${database}`, () => {
    let dir: string;
    let closed: RunningServer;
    let open: RunningServer;

    beforeAll(async () => {
      ({ dir } = await sharedExample("blog", database));
      const env = async () => ({ DATABASE_URL: (await exampleDatabase("blog", database)).url, API_SIGNATURE_KEY: KEY });
      [closed, open] = await Promise.all([
        startTranspiled(dir, await env()),
        startTranspiled(dir, { ...(await env()), API_DOCS: "on" }),
      ]);
    });

    afterAll(async () => {
      await Promise.all([closed?.stop(), open?.stop()]);
    });

    /** A client with the key, another key, or none (null). */
    const api = (server: RunningServer, key: string | null = KEY): Client =>
      client(`${server.url}/blog`, key ?? undefined);
    const file = (version: string) => readFileSync(join(dir, "openapi", `${version}.json`), "utf8");

    describe("by default", () => {
      it("serves each version's document, as generated, to a request with the key", async () => {
        for (const version of ["v1", "v2"]) {
          const answer = await api(closed).get(`/${version}/openapi.json`);
          expect(answer.status).toBe(200);
          expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
          expect(answer.text).toBe(file(version));
          expect((answer.body as Json).info.version).toBe(version);
        }
      });

      it("keeps the documents behind the key", async () => {
        for (const key of [null, "wrong"]) {
          const answer = await api(closed, key).get("/v1/openapi.json");
          expect(answer.status).toBe(401);
          expect(answer.body).toEqual(failure("Invalid or missing API signature key"));
        }
      });

      it("answers 404 for a version the project does not have", async () => {
        for (const path of ["/v3/openapi.json", "/v0/openapi.json", "/users/v1/openapi.json"]) {
          const answer = await api(closed).get(path);
          expect(answer.status, path).toBe(404);
          expect(answer.body).toEqual(failure("Data not found"));
        }
      });

      it("serves no reference page: the key first, then 404", async () => {
        for (const path of ["/docs", "/docs/", "/docs/swagger-ui-bundle.js", "/docs/init.js"]) {
          expect((await api(closed, null).get(path)).body, path).toEqual(
            failure("Invalid or missing API signature key"),
          );
          const answer = await api(closed).get(path);
          expect(answer.status, path).toBe(404);
          expect(answer.body).toEqual(failure("Data not found"));
        }
      });
    });

    describe("with API_DOCS=on", () => {
      it("serves the documents without the key, and with any", async () => {
        for (const key of [null, "wrong", KEY]) {
          const answer = await api(open, key).get("/v2/openapi.json");
          expect(answer.status).toBe(200);
          expect(answer.text).toBe(file("v2"));
        }
      });

      it("still answers 404 for an unknown version, behind the key", async () => {
        expect((await api(open, null).get("/v3/openapi.json")).status).toBe(401);
        const answer = await api(open).get("/v3/openapi.json");
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual(failure("Data not found"));
      });

      it("keeps the API itself behind the key", async () => {
        const answer = await api(open, null).get("/users/v1/list");
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual(failure("Invalid or missing API signature key"));
        expect((await api(open).get("/users/v1/list")).status).toBe(200);
      });

      it("serves the reference page without the key, loading Swagger UI from the server itself", async () => {
        const page = await fetch(`${open.url}/blog/docs`);
        expect(page.status).toBe(200);
        expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
        const html = await page.text();
        const version = (JSON.parse(readFileSync(join(SWAGGER_UI, "package.json"), "utf8")) as { version: string })
          .version;
        const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
        expect(sources).toEqual([
          "data:,",
          `docs/swagger-ui.css?v=${version}`,
          `docs/swagger-ui-bundle.js?v=${version}`,
          `docs/swagger-ui-standalone-preset.js?v=${version}`,
          "docs/init.js",
        ]);
        expect(html).toContain("<title>blog API reference</title>");
        expect(html).not.toMatch(/https?:\/\//);
      });

      it("sends a page asked with a trailing slash to the one without, where its relative links work", async () => {
        const answer = await fetch(`${open.url}/blog/docs/`, { redirect: "manual" });
        expect(answer.status).toBe(302);
        expect(answer.headers.get("location")).toBe("../docs");
        expect(new URL(answer.headers.get("location")!, `${open.url}/blog/docs/`).pathname).toBe("/blog/docs");
      });

      it("serves Swagger UI's files from swagger-ui-dist, gzipped when asked, cached for good", async () => {
        for (const [name, type] of [
          ["swagger-ui.css", "text/css; charset=utf-8"],
          ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
          ["swagger-ui-standalone-preset.js", "text/javascript; charset=utf-8"],
        ] as const) {
          const plain = await fetch(`${open.url}/blog/docs/${name}`, { headers: { "accept-encoding": "identity" } });
          expect(plain.status, name).toBe(200);
          expect(plain.headers.get("content-type")).toBe(type);
          expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
          const original = readFileSync(join(SWAGGER_UI, name));
          expect(Buffer.from(await plain.arrayBuffer()).equals(original), name).toBe(true);
          // fetch would unzip it: a raw request shows what was sent.
          const zipped = await rawGet(`${open.url}/blog/docs/${name}`, { "accept-encoding": "gzip" });
          expect(zipped.headers["content-encoding"]).toBe("gzip");
          expect(zipped.body.length).toBeLessThan(original.length / 2);
          expect(gunzipSync(zipped.body).equals(original)).toBe(true);
        }
      });

      it("opens Swagger UI on every version's document, the newest first, with nothing loaded from elsewhere", async () => {
        const answer = await fetch(`${open.url}/blog/docs/init.js`);
        expect(answer.status).toBe(200);
        expect(answer.headers.get("cache-control")).toBe("no-cache");
        const script = await answer.text();
        const options = JSON.parse(/Object\.assign\((\{.*?\}), \{/s.exec(script)![1]!) as Json;
        expect(options).toMatchObject({
          urls: [
            { url: "v1/openapi.json", name: "v1" },
            { url: "v2/openapi.json", name: "v2" },
          ],
          "urls.primaryName": "v2",
          validatorUrl: null,
          persistAuthorization: false,
        });
      });

      it("answers other methods on the page with 405, behind the key", async () => {
        expect((await api(open, null).request("POST", "/docs")).status).toBe(401);
        const answer = await api(open).request("POST", "/docs");
        expect(answer.status).toBe(405);
        expect(answer.body).toEqual(failure("Method not allowed"));
      });
    });

    it("describes the very schemas the server compiles into its validators and serializers", async () => {
      const documents = readDocuments(dir);
      for (const [table, name] of [
        ["users", "Users"],
        ["posts", "Posts"],
        ["categories", "Categories"],
        ["comments", "Comments"],
      ] as const) {
        const module = (await import(pathToFileURL(join(dir, "dist", "schemas", `${table}.js`)).href)) as Record<
          string,
          Json
        >;
        const compiled = module[`${table}Schemas`]!;
        for (const document of documents.values()) {
          const schemas = document.components.schemas as Json;
          if (!schemas[`${name}Record`]) continue;
          // The documents' schemas with their annotations (examples, formats' own patterns) taken off.
          expect(compiled.create.body).toEqual(compiledSchema(schemas[`${name}Create`]));
          expect(compiled.update.body).toEqual(compiledSchema(schemas[`${name}Update`]));
          expect(compiled.show.response[200].properties.data).toEqual(compiledSchema(schemas[`${name}Record`]));
          expect(compiled.list.response[200].properties.data.items).toEqual(compiledSchema(schemas[`${name}Record`]));
        }
      }
    });
  });
}

describe("API_DOCS", () => {
  it("is on or off: any other value stops the server from starting, with one line", async () => {
    const { dir } = await sharedExample("blog");
    const { url } = await exampleDatabase("blog");
    await expect(startTranspiled(dir, { DATABASE_URL: url, API_SIGNATURE_KEY: KEY, API_DOCS: "yes" })).rejects.toThrow(
      'Cannot start: API_DOCS must be on or off, not "yes"',
    );
  });
});

/** A GET whose body is kept as sent (fetch would decode it). */
async function rawGet(url: string, headers: Record<string, string>) {
  const { request } = await import("node:http");
  return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}
