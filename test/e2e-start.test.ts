import { existsSync, statSync } from "node:fs";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { scratchDir } from "./helpers/generate.ts";
import { answersOutsideDocuments, client } from "./helpers/http.ts";
import type { LiveDatabase } from "./helpers/live-db.ts";
import { START, startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// `npm start` of a generated server (issue 18): run.js transpiles what changed in src/ since the
// last start, removes what dist/ has of deleted sources, runs the server in the same process, and
// maps stack traces into the .ts files.

const KEY = "start-key-0123456789";

const routes = (greeting: string) => `import type { FastifyPluginAsync } from "fastify";
import { found } from "../http/envelope.js";

function explode(): never {
  throw new Error("exploded on purpose");
}

const routes: FastifyPluginAsync = async (app) => {
  app.get("/hello", async () => found({ greeting: "${greeting}" }));
  app.get("/explode", async () => explode());
};

export default routes;
`;

const REFUSING_HOOKS = `import { defineHooks } from "../../hooks.js";
import { reject } from "../../http/errors.js";

export default defineHooks("users", {
  beforeCreate() {
    throw reject(403, "No more users");
  },
});
`;

describe("npm start (run.js)", () => {
  let dir: string;
  let db: LiveDatabase;
  let server: RunningServer | undefined;
  const run = (args: string[]) =>
    execa(process.execPath, ["run.js", ...args], {
      cwd: dir,
      env: { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "warn" },
      reject: false,
    });
  const start = async () => {
    server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
    answersOutsideDocuments(server.url);
    return client(`${server.url}/blog`, KEY);
  };
  const modified = (path: string) => statSync(join(dir, path)).mtimeMs;

  beforeAll(async () => {
    const shared = await sharedExample("blog");
    dir = join(await scratchDir("start"), "server");
    await cp(shared.dir, dir, { recursive: true });
    await mkdir(join(dir, "src/custom/hooks"), { recursive: true });
    db = await exampleDatabase("blog");
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("is what the package's start, cluster, transpile and migrate scripts run", async () => {
    const { scripts } = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toBe("node run.js server");
    expect(START.slice(1)).toEqual(["run.js", "server"]);
    expect(scripts.cluster).toBe("node run.js cluster");
    expect(scripts.transpile).toBe("node run.js");
    expect(scripts.migrate).toBe("prisma migrate deploy && node run.js wal");
  });

  it("transpiles an edit of src/custom/ before starting, and nothing when nothing changed", async () => {
    await writeFile(join(dir, "src/custom/routes.ts"), routes("Hello"));
    let api = await start();
    expect((await api.get("/hello")).body).toMatchObject({ data: { greeting: "Hello" } });
    await server!.stop();

    const transpiled = [modified("dist/app.js"), modified("dist/custom/routes.js"), modified("dist/.transpiled.json")];
    expect((await run([])).exitCode).toBe(0);
    expect([modified("dist/app.js"), modified("dist/custom/routes.js"), modified("dist/.transpiled.json")]).toEqual(
      transpiled,
    );

    await writeFile(join(dir, "src/custom/routes.ts"), routes("Hello again"));
    api = await start();
    expect((await api.get("/hello")).body).toMatchObject({ data: { greeting: "Hello again" } });
    // Only the file that changed was transpiled again.
    expect(modified("dist/app.js")).toBe(transpiled[0]);
    expect(modified("dist/custom/routes.js")).not.toBe(transpiled[1]);
  });

  it("no longer runs a deleted source: its JavaScript leaves dist/", async () => {
    await writeFile(join(dir, "src/custom/hooks/users.ts"), REFUSING_HOOKS);
    let api = await start();
    expect((await api.post("/users/v1/create", { name: "Ada", email: "ada@example.com" })).status).toBe(403);
    await server!.stop();

    await rm(join(dir, "src/custom/hooks/users.ts"));
    api = await start();
    expect((await api.post("/users/v1/create", { name: "Ada", email: "ada@example.com" })).status).toBe(201);
    expect(existsSync(join(dir, "dist/custom/hooks/users.js"))).toBe(false);
    expect(existsSync(join(dir, "dist/custom/hooks/users.js.map"))).toBe(false);
  });

  it("transpiles again what something else wrote into dist/ (tsc's npm run build)", async () => {
    const app = await readFile(join(dir, "dist/app.js"), "utf8");
    await writeFile(join(dir, "dist/app.js"), "throw new Error('not this one');\n");
    expect((await run([])).exitCode).toBe(0);
    expect(await readFile(join(dir, "dist/app.js"), "utf8")).toBe(app);
  });

  it("names the .ts file, line and column in a stack trace", async () => {
    await writeFile(join(dir, "src/custom/routes.ts"), routes("Hello"));
    const api = await start();
    expect((await api.get("/explode")).status).toBe(500);
    // The error's log line reaches the server's output pipe on its own time, maybe after the answer.
    await server!.waitForOutput("exploded on purpose");
    const stack = server!.output();
    expect(stack).toContain("Error: exploded on purpose\\n    at explode (");
    expect(stack).toContain(`${join(dir, "src/custom/routes.ts")}:5:9)`);
    expect(stack).not.toContain("dist/custom/routes.js");
  });

  it("does not start on a source esbuild cannot read, and says where", async () => {
    await writeFile(join(dir, "src/custom/routes.ts"), "const broken: = 1;\n");
    const result = await run(["server"]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).not.toContain("Listening on");
    expect(result.stderr).toContain('[ERROR] Unexpected "="');
    expect(result.stderr).toContain("src/custom/routes.ts:1:14:");
    await writeFile(join(dir, "src/custom/routes.ts"), routes("Hello"));
    expect((await run([])).exitCode).toBe(0);
  });

  it("does not start on a route schema Ajv cannot compile (no meta-schema check, but compiling still refuses)", async () => {
    await writeFile(
      join(dir, "src/custom/routes.ts"),
      `import type { FastifyPluginAsync } from "fastify";

const routes: FastifyPluginAsync = async (app) => {
  app.get("/hello", { schema: { querystring: { type: "object", required: "name" } } }, async () => ({}));
};

export default routes;
`,
    );
    const result = await run(["server"]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).not.toContain("Listening on");
    expect(result.stderr).toContain(
      'Failed building the validation schema for GET: /blog/hello, due to error required value must be ["array"]',
    );
    await writeFile(join(dir, "src/custom/routes.ts"), routes("Hello"));
  });

  it("refuses an entry point that src/ does not have", async () => {
    const result = await run(["nope"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('Cannot run "nope": src/nope.ts does not exist');
  });
});
