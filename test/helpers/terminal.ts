import { spawn } from "node:child_process";

export interface TerminalRun {
  exitCode: number | null;
  output: string;
}

/**
 * Runs a command on a real pseudo-terminal (util-linux `script`), so that it sees a TTY as a user's
 * shell gives it, and answers its prompts: each answer is typed once its prompt text has appeared.
 */
export function runOnTerminal(
  command: string[],
  cwd: string,
  answers: [prompt: string, keys: string][],
  env: Record<string, string> = {},
): Promise<TerminalRun> {
  const quoted = command.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qfec", quoted, "/dev/null"], {
    cwd,
    env: { ...process.env, ...env, TERM: "dumb", NO_COLOR: "1" },
  });
  let output = "";
  const pending = [...answers];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    while (pending.length > 0 && output.includes(pending[0]![0])) child.stdin.write(pending.shift()![1]);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no exit within 60 s; output so far:\n${output}`));
    }, 60_000);
    child.on("exit", (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, output });
    });
  });
}
