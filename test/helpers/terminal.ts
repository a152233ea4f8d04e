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
  // No clock of its own: it ends when the process exits (the test run's backstop ends a hang).
  return new Promise((resolve) => {
    child.on("exit", (exitCode) => resolve({ exitCode, output }));
  });
}
