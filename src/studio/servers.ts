import { once } from "node:events";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { UserError } from "../errors.ts";
import type { ServerState } from "./protocol.ts";
import { Conflict, shown, type Project } from "./workspace.ts";

/**
 * The projects' generated servers, started and stopped from the studio: each as `npm start` runs
 * it (`node run.js server` in the server's folder, which brings dist/ up to date first), as a child
 * process with the studio's environment and the project's `.env` (which the server reads itself),
 * on a free loopback port, with its API reference page on. Stopped when the studio stops.
 */

/** How long a server may take to say it listens (a first start transpiles every file). */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
/** Lines of a server's output kept for the page. */
const KEPT_LINES = 100;

interface Running {
  child: ResultPromise;
  state: ServerState;
  lines: string[];
}

export class GeneratedServers {
  private readonly servers = new Map<string, Running>();

  state(id: string): ServerState {
    const running = this.servers.get(id);
    if (!running) return { status: "stopped" };
    return { ...running.state, output: running.lines.slice(-20) };
  }

  /** The URL of a running server, or a 409 naming how to start it. */
  url(project: Project, name: string): string {
    const state = this.servers.get(project.id)?.state;
    if (state?.status !== "running" || !state.url)
      throw new Conflict(`The server of ${name} is not running: start it on the Data page`);
    return state.url;
  }

  async start(project: Project, progress: (text: string) => void): Promise<ServerState> {
    const current = this.servers.get(project.id);
    if (current && (current.state.status === "running" || current.state.status === "starting")) return current.state;
    if (!existsSync(join(project.out, "run.js")) || !existsSync(join(project.out, "prisma", "schema.prisma"))) {
      throw new UserError(
        `${shown(project.out)}: no generated server here; apply the changes first (the Changes page runs generate and migrate)`,
      );
    }
    if (!resolvable(project.out, "fastify")) await install(project, progress);
    progress(`Starting the server in ${shown(project.out)} (node run.js server)…`);
    const child = execa(process.execPath, ["run.js", "server"], {
      cwd: project.out,
      env: { HOST: "127.0.0.1", PORT: "0", API_DOCS: "on" },
      reject: false,
      buffer: false,
      stdin: "ignore",
    });
    const running: Running = { child, state: { status: "starting" }, lines: [] };
    this.servers.set(project.id, running);
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new UserError(`the server did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      const read = (line: string) => {
        running.lines.push(line);
        if (running.lines.length > KEPT_LINES) running.lines.shift();
        const match = /Listening on (http:\/\/\S+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      eachLine(child.stdout!, read);
      eachLine(child.stderr!, read);
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        const last = running.lines.filter((line) => line.trim() !== "").slice(-3);
        const why = last.length > 0 ? `: ${last.join(" ").replace(/\s+/g, " ").trim()}` : "";
        const message = `the server stopped (${signal ?? `exit code ${code}`})${why}`;
        running.state = { status: running.state.status === "stopping" ? "stopped" : "failed", message };
        reject(new UserError(message));
      });
    });
    running.state = { status: "running", url };
    progress(`Listening on ${url}`);
    return running.state;
  }

  async stop(id: string): Promise<void> {
    const running = this.servers.get(id);
    if (!running) return;
    const { child } = running;
    if (child.exitCode === null && child.signalCode === null) {
      running.state = { ...running.state, status: "stopping" };
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    this.servers.delete(id);
  }

  isRunning(id: string): boolean {
    return this.servers.get(id)?.state.status === "running";
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.servers.keys()].map((id) => this.stop(id)));
  }

  /** On an abrupt exit of the studio: the children are told at once (nothing can be awaited then). */
  killAll(): void {
    for (const { child } of this.servers.values()) if (child.exitCode === null) child.kill("SIGTERM");
  }
}

/** Whether a package resolves from a folder as Node resolves it: its node_modules or an ancestor's. */
function resolvable(dir: string, name: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, "node_modules", name, "package.json"))) return true;
    if (dirname(current) === current) return false;
  }
}

/** `npm install` in the server's folder (its dependencies, as its README says), each line told. */
async function install(project: Project, progress: (text: string) => void): Promise<void> {
  progress(`Installing the server's dependencies (npm install in ${shown(project.out)})…`);
  const child = execa("npm", ["install", "--no-audit", "--no-fund"], {
    cwd: project.out,
    reject: false,
    all: true,
    stdin: "ignore",
  });
  eachLine(child.all!, (line) => line.trim() !== "" && progress(line.trim()));
  const result = await child;
  if (result.exitCode !== 0) {
    const last = String(result.all ?? "")
      .trim()
      .split("\n")
      .filter((line) => /err/i.test(line))
      .slice(-1)[0];
    throw new UserError(`npm install failed in ${shown(project.out)}${last ? `: ${last.trim()}` : ""}`);
  }
}

/** Calls `onLine` with each whole line a stream writes. */
function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = "";
  stream.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}
