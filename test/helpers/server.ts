import { EventEmitter, once } from "node:events";
import { execa, type ResultPromise } from "execa";
import { validateAnswersOf } from "./http.ts";
import { serverValidator } from "./openapi.ts";

export interface RunningServer {
  url: string;
  process: ResultPromise;
  output: () => string;
  /**
   * Resolves once the server's output holds `text` (`times` times): a log line reaches the output
   * pipe on its own time, maybe after the answer that caused it. Rejects if the server exits first.
   */
  waitForOutput: (text: string, times?: number) => Promise<void>;
  stop: () => Promise<void>;
}

/** `npm run migrate` in a generated server: Prisma's migrations, then WAL mode. */
export async function migrate(dir: string, env: Record<string, string>): Promise<void> {
  await execa("npm", ["run", "--silent", "migrate"], { cwd: dir, env });
}

/**
 * `npm run transpile` in a generated server, as the script its package.json holds runs it
 * (`node run.js`), without npm in between: its sources as JavaScript in dist/, what `npm start`
 * does first.
 */
export async function transpile(dir: string): Promise<void> {
  await execa(process.execPath, ["run.js"], { cwd: dir });
}

/** The command `npm start` runs, without npm in between (run.js transpiles only what changed, then runs it). */
export const START = [process.execPath, "run.js", "server"] as const;

/**
 * Starts a generated server as `npm start` does (or `npm run cluster` with the entry "cluster") on
 * a free port; resolves once it listens.
 */
export async function startServer(
  dir: string,
  env: Record<string, string>,
  entry: "server" | "cluster" = "server",
): Promise<RunningServer> {
  await transpile(dir);
  return startTranspiled(dir, env, entry);
}

/**
 * Starts a server that is transpiled already, as `npm start` does (run.js finds nothing changed, so
 * it writes nothing): a shared example (test/helpers/shared-examples.ts), which is transpiled once
 * and never written to again.
 */
export async function startTranspiled(
  dir: string,
  env: Record<string, string>,
  entry: "server" | "cluster" = "server",
): Promise<RunningServer> {
  const [node, ...args] = START;
  const child = execa(node, [...args.slice(0, -1), entry], {
    cwd: dir,
    env: { HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "warn", ...env },
    reject: false,
    buffer: false,
  });
  let output = "";
  const grown = new EventEmitter();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    grown.emit("data");
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  child.on("exit", () => grown.emit("exit"));
  const waitForOutput = (text: string, times = 1) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (output.split(text).length - 1 < times) return false;
        grown.off("data", check).off("exit", exited);
        resolve();
        return true;
      };
      const exited = () => {
        if (check()) return;
        grown.off("data", check);
        reject(new Error(`the server exited before its output held ${JSON.stringify(text)}:\n${output}`));
      };
      if (check()) return;
      if (child.exitCode !== null || child.signalCode !== null) return exited();
      grown.on("data", check).once("exit", exited);
    });
  const url = await new Promise<string>((resolve, reject) => {
    const listening = () => {
      const match = /Listening on (\S+)/.exec(output);
      if (!match) return;
      grown.off("data", listening).off("exit", exited);
      resolve(match[1]!);
    };
    const exited = () => reject(new Error(`server exited with ${child.exitCode} before listening:\n${output}`));
    grown.on("data", listening).once("exit", exited);
  });
  // Every answer the test helpers' clients get from it is checked against its OpenAPI documents.
  const forget = validateAnswersOf(url, serverValidator(dir));
  return {
    url,
    process: child,
    output: () => output,
    waitForOutput,
    stop: async () => {
      forget();
      if (child.stdout!.readableEnded) return;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      // Until its output is read to the end: the last log lines are written as it stops.
      await once(child, "close");
    },
  };
}
