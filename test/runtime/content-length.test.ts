import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { failure } from "../helpers/http.ts";
import { exampleDatabase, sharedExample } from "../helpers/shared-examples.ts";

// A body shorter than its Content-Length cannot reach the server over a socket (Node's parser waits
// for the rest), so this one error answer is checked in process, with Fastify's request injection
// on the generated application.

const KEY = "content-length-key";
let app: FastifyInstance;

beforeAll(async () => {
  const { dir } = await sharedExample("blog");
  const { url } = await exampleDatabase("blog");
  const { loadConfig } = await import(join(dir, "src/config.ts"));
  const { openDatabase } = await import(join(dir, "src/db.ts"));
  const { buildApp } = await import(join(dir, "src/app.ts"));
  const config = loadConfig({ DATABASE_URL: url, API_SIGNATURE_KEY: KEY, LOG_LEVEL: "silent" });
  app = await buildApp(config, openDatabase(config));
});

afterAll(async () => {
  await app?.close();
});

it("answers a body that does not match its Content-Length with 400 in the envelope", async () => {
  const answer = await app.inject({
    method: "POST",
    url: "/blog/users/v1/create",
    headers: { "x-api-signature": KEY, "content-type": "application/json", "content-length": "100" },
    payload: JSON.stringify({ name: "Ada", email: "ada@example.com" }),
  });
  expect(answer.statusCode).toBe(400);
  expect(answer.json()).toEqual(failure("Invalid request: Content-Length does not match the body"));
});
