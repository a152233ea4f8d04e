import { once } from "node:events";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { REPO } from "../helpers/generate.ts";

export interface StudioProcess {
  /** http://127.0.0.1:<port>/ */
  url: string;
  /** The printed address, with the run's token. */
  openUrl: string;
  token: string;
  port: number;
  process: ResultPromise;
  output: () => string;
  /** SIGTERM, as Ctrl+C's neighbour; resolves when the studio has exited. */
  stop: () => Promise<void>;
}

/**
 * `tablegen studio <dir> --port 0`, as a user runs it (the compiled CLI, through bin/tablegen.js),
 * in the workspace folder; resolves with the address it prints.
 */
export async function startStudioProcess(
  dir: string,
  env: Record<string, string | undefined> = {},
): Promise<StudioProcess> {
  const child = execa(process.execPath, [join(REPO, "bin", "tablegen.js"), "studio", dir, "--port", "0"], {
    cwd: dir,
    env: {
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      DATABASE_URL: undefined,
      API_SIGNATURE_KEY: undefined,
      ...env,
    },
    reject: false,
    buffer: false,
    stdin: "ignore",
  });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const openUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /tablegen studio: (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on("exit", (code) => reject(new Error(`tablegen studio exited with ${code} before listening:\n${output}`)));
  });
  const parsed = new URL(openUrl);
  return {
    url: `${parsed.origin}/`,
    openUrl,
    token: parsed.searchParams.get("token")!,
    port: Number(parsed.port),
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
