import { once } from "node:events";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { REPO } from "./generate.ts";

const TSX = join(REPO, "node_modules", "tsx", "dist", "cli.mjs");

export interface RunningServer {
  url: string;
  process: ResultPromise;
  output: () => string;
  stop: () => Promise<void>;
}

/** `npm run migrate` in a generated server: Prisma's migrations, then WAL mode. */
export async function migrate(dir: string, env: Record<string, string>): Promise<void> {
  await execa("npm", ["run", "--silent", "migrate"], { cwd: dir, env });
}

/** Starts a generated server (as `npm start` does) on a free port; resolves once it listens. */
export async function startServer(dir: string, env: Record<string, string>): Promise<RunningServer> {
  const child = execa(process.execPath, [TSX, "src/server.ts"], {
    cwd: dir,
    env: { HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "warn", ...env },
    reject: false,
    buffer: false,
  });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
