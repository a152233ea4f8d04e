import { UserError } from "../errors.ts";
import { startStudio } from "./app.ts";

export interface StudioCommandOptions {
  port?: string;
  open?: boolean;
}

/**
 * `tablegen studio [dir]`: serves the studio on loopback until SIGINT or SIGTERM, then stops the
 * generated servers it started. Prints the address to open, with the run's token.
 */
export async function studio(dir: string, options: StudioCommandOptions, print: (line: string) => void): Promise<void> {
  const port = portOption(options.port);
  const running = await startStudio({ dir, port });
  print(`tablegen studio: ${running.openUrl}`);
  print("Open that address (it holds this run's token); Ctrl+C stops the studio and the servers it started.");
  if (options.open) await openBrowser(running.openUrl, print);
  // An exit the handlers below do not see (an uncaught error) still tells the servers to stop.
  process.once("exit", () => running.killServers());
  await new Promise<void>((resolve) => {
    // The handlers stay while the studio stops: another listener (execa's clean-up, through
    // signal-exit) raises the signal again when it finds itself the last one.
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        print(`Stopping at once (${signal} again).`);
        running.killServers();
        process.exit(130);
      }
      stopping = true;
      print(`Stopping (${signal})…`);
      void running.close().then(resolve, resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

function portOption(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new UserError(`--port must be a port number from 0 to 65535 (0: a free one), not "${value}"`);
  return port;
}

/** The system's way of opening a URL in the default browser; the URL is the studio's own, never a browser's input. */
async function openBrowser(url: string, print: (line: string) => void): Promise<void> {
  const { execa } = await import("execa");
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["explorer.exe", [url]]
        : ["xdg-open", [url]];
  const result = await execa(command, args, { reject: false, stdio: "ignore", detached: true });
  if (result.failed) print(`Could not open a browser (${command}); open the address above yourself.`);
}
