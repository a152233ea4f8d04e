import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ConfigError } from "../config.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Answered without the key: the API reference and its documents, with API_DOCS=on. */
    public?: boolean;
  }
}

export interface ApiDocsOptions {
  project: string;
  versions: readonly string[];
  /** API_DOCS=on: the reference page at /<project>/docs, and the documents without the key. */
  open: boolean;
}

/** Swagger UI's files the page loads, served from the swagger-ui-dist package: no CDN. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
};

interface Asset {
  type: string;
  body: Buffer;
  gzipped: Buffer;
  cache: string;
}

/**
 * The OpenAPI document of each version at GET /<project>/<version>/openapi.json (behind the key
 * unless API_DOCS=on) and, with API_DOCS=on, the API reference page at GET /<project>/docs:
 * Swagger UI, with every version, where a user types the key to try requests.
 */
export const apiDocs: FastifyPluginAsync<ApiDocsOptions> = async (app, { project, versions, open }) => {
  // Every valid key may read them, whatever its scope: they hold the API's shape, never its data.
  const config = { public: open, keys: "any" as const };
  for (const version of versions) {
    const document = readDocument(version);
    app.get(`/${project}/${version}/openapi.json`, { config }, async (_request, reply) =>
      reply.type("application/json; charset=utf-8").send(document),
    );
  }
  if (!open) return;

  const swaggerUi = swaggerUiFolder();
  const assets = new Map<string, Asset>();
  const immutable = "public, max-age=31536000, immutable";
  for (const [name, type] of Object.entries(ASSETS)) {
    const body = readFileSync(join(swaggerUi.dir, name));
    assets.set(name, { type, body, gzipped: gzipSync(body), cache: immutable });
  }
  const init = Buffer.from(initScript(versions));
  assets.set("init.js", {
    type: ASSETS["swagger-ui-bundle.js"]!,
    body: init,
    gzipped: gzipSync(init),
    cache: "no-cache",
  });
  const page = html(project, swaggerUi.version);

  app.get(`/${project}/docs`, { config }, async (request, reply) => {
    // The page's links are relative to /<project>/: from /<project>/docs/ they would miss.
    if (request.url.split("?")[0]!.endsWith("/")) return reply.redirect("../docs");
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(page);
  });
  for (const [name, asset] of assets) {
    app.get(`/${project}/docs/${name}`, { config }, async (request, reply) => sendAsset(request, reply, asset));
  }
};

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  reply.type(asset.type).header("cache-control", asset.cache).header("vary", "accept-encoding");
  if (/\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) {
    return reply.header("content-encoding", "gzip").send(asset.gzipped);
  }
  return reply.send(asset.body);
}

/** A version's document, `openapi/<version>.json` beside `src/` and `dist/`, as written by tablegen. */
function readDocument(version: string): string {
  const path = fileURLToPath(new URL(`../../openapi/${version}.json`, import.meta.url));
  if (!existsSync(path)) throw new ConfigError(`${path} is missing: run "tablegen generate" again`);
  return readFileSync(path, "utf8");
}

function swaggerUiFolder(): { dir: string; version: string } {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve("swagger-ui-dist/package.json");
  } catch {
    throw new ConfigError("API_DOCS=on needs the swagger-ui-dist package: run npm install");
  }
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  return { dir: dirname(manifest), version };
}

/** The page: Swagger UI's own files, then init.js, all from this server. */
function html(project: string, swaggerUiVersion: string): string {
  const asset = (name: string) => `docs/${name}?v=${swaggerUiVersion}`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${project} API reference</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${asset("swagger-ui.css")}" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${asset("swagger-ui-bundle.js")}"></script>
    <script src="${asset("swagger-ui-standalone-preset.js")}"></script>
    <script src="docs/init.js"></script>
  </body>
</html>
`;
}

/**
 * Swagger UI over every version's document, opened on the newest. It loads nothing from
 * elsewhere (no validator badge), and keeps the key a user types for the page's lifetime only.
 */
function initScript(versions: readonly string[]): string {
  const urls = versions.map((version) => ({ url: `${version}/openapi.json`, name: version }));
  const options = {
    urls,
    "urls.primaryName": [...versions].sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)))[0],
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "StandaloneLayout",
    validatorUrl: null,
    displayOperationId: true,
    displayRequestDuration: true,
    persistAuthorization: false,
  };
  return `window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(options)}, {
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
}));
`;
}
