import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { init } from "../cli/init.ts";
import { packagePath } from "../cli/paths.ts";
import { UserError } from "../errors.ts";
import { DATABASES, PROJECT_NAME } from "../manifest/schema.ts";
import { AiDrafts, aiStatus, configuredAi } from "./ai.ts";
import { apply, InvalidManifest, plan, projectDetail, projectSummary, saveEdit, validateEdit } from "./projects.ts";
import type {
  AiBody,
  ApplyBody,
  CreateBody,
  EditBody,
  ErrorBody,
  NewScopedKey,
  Workspace as WorkspaceView,
} from "./protocol.ts";
import { GeneratedServers } from "./servers.ts";
import {
  finishRotation,
  KeyRefused,
  newScopedKey,
  revealKey,
  revokeScopedKey,
  rotateKey,
  setDatabaseUrl,
  settingsView,
  signatureKey,
} from "./settings.ts";
import { errorMessage, Steps, streamed } from "./stream.ts";
import { Conflict, NotFound, shown, Workspace, type Project } from "./workspace.ts";

/**
 * The studio's HTTP server: the browser app (built into dist/studio by `npm run build`) and its
 * JSON API, on loopback only. Every request must carry the run's token (from the printed URL, then
 * an HttpOnly SameSite=Strict cookie); one whose Host is not the studio's own address is refused
 * (DNS rebinding), and so is a request that changes something from a foreign Origin (CSRF).
 */

export const HOST = "127.0.0.1";

/** Where the built browser app is. */
export const UI_DIR = packagePath("dist", "studio");

export interface StudioOptions {
  /** The workspace folder. */
  dir: string;
  /** 0: a free port. */
  port: number;
  /** The per-run token; a fresh one by default. */
  token?: string;
  /** The built browser app; UI_DIR by default. */
  uiDir?: string;
}

export interface Studio {
  url: string;
  /** The URL to open: with the token, which the first answer turns into a cookie. */
  openUrl: string;
  port: number;
  close(): Promise<void>;
  /** Tells running generated servers to stop, at once (on an abrupt exit). */
  killServers(): void;
}

export async function startStudio(options: StudioOptions): Promise<Studio> {
  const uiDir = options.uiDir ?? UI_DIR;
  if (!existsSync(join(uiDir, "index.html"))) {
    throw new UserError(
      `the studio's browser app is not built (${shown(join(uiDir, "index.html"))} is missing): run "npm run build" in tablegen's folder`,
    );
  }
  const workspace = new Workspace(options.dir);
  const token = options.token ?? randomBytes(32).toString("base64url");
  const servers = new GeneratedServers();
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  const address: { port: number } = { port: options.port };
  guard(app, token, address);
  await app.register(fastifyStatic, { root: uiDir, prefix: "/", wildcard: false, cacheControl: false });
  routes(app, workspace, servers);
  try {
    await app.listen({ host: HOST, port: options.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new UserError(`--port ${options.port}: the port is in use (EADDRINUSE)`);
    if (code === "EACCES") throw new UserError(`--port ${options.port}: not allowed to listen on it (EACCES)`);
    throw error;
  }
  const port = (app.server.address() as { port: number }).port;
  address.port = port;
  const url = `http://${HOST}:${port}/`;
  return {
    url,
    openUrl: `${url}?token=${token}`,
    port,
    close: async () => {
      await servers.stopAll();
      await app.close();
    },
    killServers: () => servers.killAll(),
  };
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function guard(app: FastifyInstance, token: string, address: { port: number }): void {
  const cookieName = () => `tablegen_studio_${address.port}`;
  const expected = Buffer.from(token);
  const matches = (value: string | undefined) => {
    if (value === undefined) return false;
    const given = Buffer.from(value);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  app.addHook("onRequest", async (request, reply) => {
    const own = [`${HOST}:${address.port}`, `localhost:${address.port}`];
    const host = request.headers.host ?? "";
    if (!own.includes(host.toLowerCase())) {
      return refuse(
        reply,
        403,
        `Refused: this studio answers only at http://${HOST}:${address.port}/ (Host was "${host}")`,
      );
    }
    const url = new URL(request.url, `http://${host}`);
    const fromUrl = url.searchParams.get("token") ?? undefined;
    if (request.method === "GET" && fromUrl !== undefined && matches(fromUrl)) {
      // The printed URL: the token becomes the cookie, and leaves the address bar (and history).
      url.searchParams.delete("token");
      const cookie = `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      return reply.header("set-cookie", cookie).redirect(`${url.pathname}${url.search}`, 303);
    }
    if (!matches(cookieOf(request, cookieName()))) {
      const message = "Unauthorized: open the address tablegen studio printed, with its token";
      // A person who opened the address without its token reads why, as a page.
      if (
        request.method === "GET" &&
        !url.pathname.startsWith("/api/") &&
        /text\/html/.test(request.headers.accept ?? "")
      )
        return reply.code(401).type("text/html; charset=utf-8").send(unauthorizedPage(message));
      return refuse(reply, 401, message);
    }
    const origin = request.headers.origin;
    if (
      MUTATING.has(request.method) &&
      origin !== undefined &&
      !own.some((ownHost) => origin === `http://${ownHost}`)
    ) {
      return refuse(reply, 403, `Refused: a change must come from the studio's own page (Origin was "${origin}")`);
    }
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    reply.header("x-frame-options", "DENY");
    reply.header(
      "content-security-policy",
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    if (request.url.startsWith("/api/")) reply.header("cache-control", "no-store");
  });
}

function unauthorizedPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tablegen studio</title></head><body style="font-family: system-ui, sans-serif; margin: 3rem;"><h1>tablegen studio</h1><p>${message}: the line <code>tablegen studio: http://127.0.0.1:…/?token=…</code> in its terminal.</p></body></html>`;
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type("application/json; charset=utf-8")
    .send({ message } satisfies ErrorBody);
}

/** A body's object, or a 400. */
function objectBody<T>(request: FastifyRequest): T {
  const body = request.body;
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new UserError("The request body must be a JSON object");
  return body as T;
}

function routes(app: FastifyInstance, workspace: Workspace, servers: GeneratedServers): void {
  const steps = new Steps();
  const drafts = new AiDrafts();
  type Params = { id: string };
  const projectOf = (request: FastifyRequest) => workspace.project((request.params as Params).id);

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof InvalidManifest)
      return reply.code(400).send({ message: error.message, problems: error.problems } satisfies ErrorBody);
    if (error instanceof KeyRefused)
      return reply.code(400).send({ message: error.message, problems: error.problems } satisfies ErrorBody);
    if (error instanceof NotFound) return reply.code(404).send({ message: error.message });
    if (error instanceof Conflict) return reply.code(409).send({ message: error.message });
    if (error instanceof UserError) return reply.code(400).send({ message: error.message });
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500)
      return reply.code(status).send({ message: `Invalid request: ${(error as Error).message}` });
    process.stderr.write(`tablegen studio: ${errorMessage(error)}\n`);
    return reply.code(500).send({ message: errorMessage(error) });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ message: `Not found: ${request.method} ${request.url.split("?")[0]}` }),
  );

  app.get("/api/workspace", async (): Promise<WorkspaceView> => {
    const projects = workspace.projects();
    return {
      dir: shown(workspace.dir),
      canCreate: !workspace.isProject(),
      projects: await Promise.all(projects.map((project) => projectSummary(project, servers.state(project.id)))),
      ai: aiStatus(),
    };
  });

  app.post("/api/projects", async (request, reply) => {
    const body = objectBody<CreateBody>(request);
    if (workspace.isProject()) {
      throw new Conflict(
        `${shown(workspace.dir)} is a project itself: start tablegen studio in a folder that holds projects to create more`,
      );
    }
    const name = typeof body.name === "string" ? body.name : "";
    if (!PROJECT_NAME.test(name)) {
      throw new UserError(
        `"${name}" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most`,
      );
    }
    if (!(DATABASES as readonly unknown[]).includes(body.database))
      throw new UserError(`database must be one of ${DATABASES.join(", ")}, not ${JSON.stringify(body.database)}`);
    if (!["blank", "example", "ai"].includes(body.start))
      throw new UserError(`start must be one of blank, example, ai, not ${JSON.stringify(body.start)}`);
    const dir = join(workspace.dir, name);
    if (existsSync(dir)) throw new Conflict(`${shown(dir)} already exists: pick another name`);
    if (body.start === "ai") {
      if (typeof body.prompt !== "string" || body.prompt.trim() === "")
        throw new UserError('The description is empty: say what the application does, e.g. "a lending library"');
      configuredAi();
    }
    const release = steps.take(name, "creating the project");
    return streamed(reply, async (progress) => {
      try {
        progress.step(`Creating ${shown(dir)} as tablegen init does…`);
        const written = await init(
          dir,
          {
            name,
            db: body.database,
            yes: true,
            example: body.start === "example",
            ...(body.start === "ai" && { ai: body.prompt }),
            progress,
          },
          false,
        );
        progress.step(`Wrote ${written.map((path) => shown(path)).join(", ")}`);
        return { id: name };
      } finally {
        release();
      }
    });
  });

  app.get("/api/projects/:id", async (request) => {
    const project = projectOf(request);
    return projectDetail(project, servers.state(project.id));
  });

  app.post("/api/projects/:id/validate", async (request) => {
    const project = projectOf(request);
    return validateEdit(project, editBody(request));
  });

  app.put("/api/projects/:id/manifest", async (request) => {
    const project = projectOf(request);
    const body = editBody(request);
    await steps.with(project.id, "a save", () => saveEdit(project, body));
    return projectDetail(project, servers.state(project.id));
  });

  app.get("/api/projects/:id/plan", async (request) => plan(projectOf(request)));

  app.post("/api/projects/:id/apply", async (request, reply) => {
    const project = projectOf(request);
    const body = objectBody<ApplyBody>(request);
    if (body.allowBreaking !== undefined && !isStringList(body.allowBreaking))
      throw new UserError("allowBreaking must be a list of version labels");
    const release = steps.take(project.id, "an apply");
    return streamed(reply, async (progress) => {
      try {
        await apply(project, body, progress);
        if (servers.isRunning(project.id)) {
          progress.step("Restarting the server onto the new code and schema…");
          await servers.stop(project.id);
          await servers.start(project, (text) => progress.step(text));
        }
        return { applied: true };
      } finally {
        release();
      }
    });
  });

  app.get("/api/projects/:id/server", async (request) => servers.state(projectOf(request).id));

  app.post("/api/projects/:id/server/start", async (request, reply) => {
    const project = projectOf(request);
    const release = steps.take(project.id, "starting the server");
    return streamed(reply, async (progress) => {
      try {
        return await servers.start(project, (text) => progress.step(text));
      } finally {
        release();
      }
    });
  });

  app.post("/api/projects/:id/server/stop", async (request) => {
    const project = projectOf(request);
    await steps.with(project.id, "stopping the server", () => servers.stop(project.id));
    return servers.state(project.id);
  });

  // The generated server's API, through the studio: the key is added here and never reaches the page.
  app.route({
    method: ["GET", "POST", "DELETE"],
    url: "/api/projects/:id/data/*",
    handler: async (request, reply) => {
      const project = projectOf(request);
      const name = manifestProject(project);
      const base = servers.url(project, name);
      const rest = (request.params as { "*": string })["*"];
      const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
      const target = new URL(`/${name}/${rest}${query}`, base);
      const key = signatureKey(project);
      const answer = await fetch(target, {
        method: request.method,
        headers: {
          ...(key !== undefined && { "x-api-signature": key }),
          ...(request.method === "POST" && { "content-type": "application/json" }),
        },
        ...(request.method === "POST" && { body: JSON.stringify(request.body ?? {}) }),
      }).catch((error: Error) => {
        throw new Conflict(`The server of ${name} did not answer (${error.message}); restart it on the Data page`);
      });
      for (const header of ["x-total-count", "deprecation", "sunset", "link"]) {
        const value = answer.headers.get(header);
        if (value !== null) reply.header(header, value);
      }
      return reply
        .code(answer.status)
        .type(answer.headers.get("content-type") ?? "application/json")
        .send(Buffer.from(await answer.arrayBuffer()));
    },
  });

  app.get("/api/projects/:id/settings", async (request) => settingsView(projectOf(request)));

  app.post("/api/projects/:id/settings/key/reveal", async (request) => ({ key: revealKey(projectOf(request)) }));

  const restartAfter = async (project: Project, change: () => void) => {
    await steps.with(project.id, "a settings change", async () => {
      change();
      if (servers.isRunning(project.id)) {
        await servers.stop(project.id);
        await servers.start(project, () => undefined);
      }
    });
    return { ...settingsView(project), server: servers.state(project.id) };
  };

  app.post("/api/projects/:id/settings/key/rotate", async (request) => {
    const project = projectOf(request);
    return restartAfter(project, () => rotateKey(project));
  });

  app.post("/api/projects/:id/settings/key/finish", async (request) => {
    const project = projectOf(request);
    return restartAfter(project, () => finishRotation(project));
  });

  app.post("/api/projects/:id/settings/keys", async (request): Promise<NewScopedKey> => {
    const project = projectOf(request);
    const body = objectBody<Record<string, unknown>>(request);
    let secret = "";
    const settings = await restartAfter(project, () => {
      secret = newScopedKey(project, body);
    });
    return { name: String(body.name).trim(), secret, settings };
  });

  app.delete("/api/projects/:id/settings/keys/:name", async (request) => {
    const project = projectOf(request);
    const { name } = request.params as { name: string };
    return restartAfter(project, () => revokeScopedKey(project, name));
  });

  app.put("/api/projects/:id/settings/database-url", async (request) => {
    const project = projectOf(request);
    const { url } = objectBody<{ url: unknown }>(request);
    return restartAfter(project, () => setDatabaseUrl(project, url));
  });

  app.post("/api/projects/:id/ai", async (request, reply) => {
    const project = projectOf(request);
    const body = objectBody<AiBody>(request);
    drafts.check(project, body);
    const release = steps.take(project.id, "an AI draft");
    return streamed(reply, async (progress) => {
      try {
        return await drafts.draft(project, body, progress);
      } finally {
        release();
      }
    });
  });

  app.post("/api/projects/:id/ai/:draft/accept", async (request) => {
    const project = projectOf(request);
    const id = (request.params as { draft: string }).draft;
    const { hash } = objectBody<{ hash?: string }>(request);
    const manifest = drafts.manifestOf(project, id);
    await steps.with(project.id, "a save", () => saveEdit(project, { manifest, ...(hash !== undefined && { hash }) }));
    drafts.discard(project, id);
    return projectDetail(project, servers.state(project.id));
  });

  app.delete("/api/projects/:id/ai/:draft", async (request) => {
    const project = projectOf(request);
    drafts.discard(project, (request.params as { draft: string }).draft);
    return { discarded: true };
  });
}

function editBody(request: FastifyRequest): EditBody {
  const body = objectBody<EditBody>(request);
  if (typeof body.manifest !== "object" || body.manifest === null || Array.isArray(body.manifest))
    throw new UserError("manifest must be an object: the manifest's data");
  if (body.renames !== undefined) {
    const valid =
      Array.isArray(body.renames) &&
      body.renames.every(
        (rename) =>
          typeof rename === "object" &&
          rename !== null &&
          Array.isArray(rename.path) &&
          typeof rename.from === "string" &&
          typeof rename.to === "string",
      );
    if (!valid) throw new UserError("renames must be a list of { path, from, to }");
  }
  return body;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** The project's name as its server's URLs have it (the manifest's `project`). */
function manifestProject(project: Project): string {
  const detail = projectDetail(project, { status: "stopped" });
  if (!detail.model) throw new InvalidManifest(detail.invalid ?? "the manifest is not valid", detail.problems);
  return detail.model.project;
}
