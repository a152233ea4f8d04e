import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { watchdog } from "./watchdog.ts";

/** The directory of PostgreSQL's server programs (initdb, pg_ctl), or undefined when absent. */
export function findPostgres(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(root, version, "bin");
      if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl"))) return bin;
    }
  }
  const which = spawnSync("sh", ["-c", 'dirname "$(command -v initdb)"'], { encoding: "utf8" });
  const bin = which.stdout.trim();
  return which.status === 0 && bin && existsSync(join(bin, "initdb")) ? bin : undefined;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:<port>` — append `/<database>`. */
  url: string;
  /** Stops the server at once and removes its directory. */
  stop: () => Promise<void>;
  /** Shuts the server down (fast: connections are terminated), keeping its data; resume starts it again. */
  halt: () => Promise<void>;
  resume: () => Promise<void>;
}

/**
 * A throwaway PostgreSQL server on loopback: initdb into a temporary directory, a free port,
 * trust authentication. Run as the postgres user when we are root (PostgreSQL refuses root). A
 * watchdog stops it when the process that started it ends, whichever way it ends.
 */
export async function startPostgres(bin: string): Promise<PostgresServer> {
  return startCluster(bin, (initdb, data) =>
    initdb("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]),
  );
}

/**
 * A streaming replica of the PostgreSQL server at `primaryUrl` (one started by startPostgres, whose
 * pg_hba trusts replication connections on loopback): `pg_basebackup -R` into a temporary
 * directory, then started on a free port with the primary's max_connections, as a hot standby.
 */
export async function startReplica(bin: string, primaryUrl: string): Promise<PostgresServer> {
  // A fast checkpoint on the primary first: the default spreads it over most of checkpoint_timeout.
  return startCluster(bin, (run, data) =>
    run("pg_basebackup", ["-R", "-D", data, "-d", primaryUrl, "-X", "stream", "-c", "fast"]),
  );
}

async function startCluster(
  bin: string,
  make: (run: (program: string, args: string[]) => void, data: string) => void,
): Promise<PostgresServer> {
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "tablegen-pg-"));
  const data = join(dir, "data");
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), args];
  const run = (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    execFileSync(file, argv, { stdio: "pipe" });
  };
  // Without blocking the event loop, for tests that keep serving requests meanwhile.
  const runAsync = async (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    await promisify(execFile)(file, argv);
  };
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  const guard = watchdog({ command: command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]), remove: dir });
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"];
  try {
    make(run, data);
    run("pg_ctl", start);
  } catch (error) {
    await guard.stop();
    throw error;
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}`,
    halt: () => runAsync("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    resume: () => runAsync("pg_ctl", start),
    stop: () => guard.stop(),
  };
}
