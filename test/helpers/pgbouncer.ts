import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./postgres.ts";
import { watchdog } from "./watchdog.ts";

/** Debian's PgBouncer (the package `pgbouncer`, 1.18), or undefined when it is not installed. */
export const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((path) => existsSync(path));

export interface PgBouncer {
  /** `postgresql://postgres@127.0.0.1:<port>` — append `/<database>`: any database of the server behind it. */
  url: string;
  stop: () => Promise<void>;
}

/**
 * PgBouncer in transaction mode on loopback in front of the PostgreSQL server at `serverUrl`
 * (`postgresql://postgres@127.0.0.1:<port>`), with `poolSize` server connections per database and
 * user, trust authentication. PgBouncer refuses to run as root: as the postgres user then. A
 * watchdog stops it when the process that started it ends, whichever way it ends.
 */
export async function startPgBouncer(serverUrl: string, poolSize = 2): Promise<PgBouncer> {
  if (!PGBOUNCER) throw new Error("PgBouncer is not installed");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "tablegen-pgbouncer-"));
  const server = new URL(serverUrl);
  const port = await freePort();
  const pidfile = join(dir, "pgbouncer.pid");
  writeFileSync(join(dir, "userlist.txt"), '"postgres" ""\n');
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=127.0.0.1 port=${server.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 200",
      `pidfile = ${pidfile}`,
      `logfile = ${join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  if (asRoot) execFileSync("chown", ["-R", "postgres", dir]);
  const command = (args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", ...args]] : [args[0]!, args.slice(1)];
  const stopCommand = command(["sh", "-c", `test -f ${pidfile} && kill -INT "$(cat ${pidfile})"`]);
  const guard = watchdog({ command: stopCommand, remove: dir });
  try {
    const [file, args] = command([PGBOUNCER, "-d", join(dir, "pgbouncer.ini")]);
    execFileSync(file, args, { stdio: "pipe" });
    // -d returns once it has forked; it answers once it listens: connect until it does.
    const url = `postgresql://postgres@127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: `${url}/postgres` });
      try {
        await client.connect();
        await client.query("SELECT 1");
        await client.end();
        break;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline)
          throw new Error(`PgBouncer did not answer: ${(error as Error).message}\n${log(dir)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    return { url, stop: () => guard.stop() };
  } catch (error) {
    await guard.stop();
    throw error;
  }
}

function log(dir: string): string {
  try {
    return readFileSync(join(dir, "pgbouncer.log"), "utf8");
  } catch {
    return "";
  }
}

/** The URL of a database of the server behind `bouncer`, through it. */
export function throughBouncer(databaseUrl: string, bouncer: PgBouncer): string {
  return `${bouncer.url}${new URL(databaseUrl).pathname}`;
}
