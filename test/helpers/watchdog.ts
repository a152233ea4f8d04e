import { spawn } from "node:child_process";

/** What a watchdog does when it is told to, or when the process that started it ends. */
export interface Cleanup {
  /** A command to run first (a server to stop), its failure ignored. */
  command?: [string, string[]];
  /** A directory to remove then. */
  remove?: string;
}

/**
 * A process of its own (its own process group, so that a ^C to the test run reaches it only
 * through the pipe) that reads its standard input until the end, then cleans up: a throwaway
 * PostgreSQL server stopped, a scratch directory removed. Its standard input is a pipe from the
 * process that started it, which the kernel closes however that process ends: a test run stopped,
 * killed or crashed takes what it started with it, on that event rather than on a clock. `stop`
 * closes the pipe itself and waits for the cleanup.
 */
export function watchdog({ command, remove }: Cleanup): { stop: () => Promise<void> } {
  const script = `
    const { execFileSync } = require("node:child_process");
    const { rmSync } = require("node:fs");
    process.stdin.resume();
    process.stdin.on("close", () => {
      const command = ${JSON.stringify(command ?? null)};
      if (command) try { execFileSync(command[0], command[1], { stdio: "ignore" }); } catch {}
      const remove = ${JSON.stringify(remove ?? null)};
      if (remove) rmSync(remove, { recursive: true, force: true });
    });`;
  const child = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  // Neither the process nor its pipe keeps the test process alive: the pipe is only there to close.
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        // Waited for now: the cleanup keeps this process alive until it is done (a benchmark's
        // last await has nothing else to keep it).
        child.ref();
        child.once("exit", () => resolve());
        child.stdin!.end();
      }),
  };
}
