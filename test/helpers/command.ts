import { vi } from "vitest";
import { main } from "../../src/cli/main.ts";

/** What a `tablegen` command answered: its exit code, and what it printed on each stream. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

let running: Promise<unknown> = Promise.resolve();

/**
 * `tablegen <args>` in `cwd`, run by the CLI's own entry (`main`, what bin/tablegen.js runs) in this
 * process rather than a process of its own: the same code, without a node start and its modules
 * loaded again for each of the scenarios' hundred-odd commands (test/cli/cli.test.ts runs the
 * binary itself). One command at a time in a process, in its
 * directory, with its environment (by default DATABASE_URL unset, as a user's shell has it: the
 * project's .env gives it) and what it prints (on the console, or commander's own
 * lines) taken as its output.
 */
export function tablegen(
  args: string[],
  cwd: string,
  env: Record<string, string> = { DATABASE_URL: "" },
): Promise<CommandResult> {
  const command = running.then(async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const text = (parts: unknown[]) => parts.map(String).join(" ");
    const log = vi.spyOn(console, "log").mockImplementation((...parts) => void stdout.push(text(parts)));
    const error = vi.spyOn(console, "error").mockImplementation((...parts) => void stderr.push(text(parts)));
    // What commander writes itself (a usage error, --help), a line or more at a time.
    const written = (lines: string[]) => (chunk: string | Uint8Array) => {
      lines.push(String(chunk).replace(/\n$/, ""));
      return true;
    };
    const out = vi.spyOn(process.stdout, "write").mockImplementation(written(stdout));
    const err = vi.spyOn(process.stderr, "write").mockImplementation(written(stderr));
    const directory = process.cwd();
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    process.chdir(cwd);
    Object.assign(process.env, env);
    try {
      const exitCode = await main(["node", "tablegen", ...args]);
      return { exitCode, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
    } finally {
      process.chdir(directory);
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      log.mockRestore();
      error.mockRestore();
      out.mockRestore();
      err.mockRestore();
    }
  });
  running = command.catch(() => undefined);
  return command;
}
