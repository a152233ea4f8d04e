// Named against unnamed statements on a direct PostgreSQL connection (issue 30): what
// DATABASE_POOLER=transaction costs, where every statement runs unnamed (parsed and planned at each
// run) instead of prepared once per connection by name.
//
//   npx tsx bench/statements.ts        (BENCH_STATEMENTS: statements per block, default 20000)
//
// A throwaway PostgreSQL server (test/helpers/postgres.ts), a table shaped like examples/blog.yaml's
// posts with 1,000 rows, and three statements as the generated server runs them: a show (by id), a
// list page (a filter, an order, a limit) and a create (INSERT … RETURNING). Each is run in blocks,
// named and unnamed alternating (four blocks each), one at a time on one connection, and measured by
// the CPU time of that connection's backend (/proc: ticks of 10 ms, so blocks of seconds), which
// other processes on the machine do not inflate as they do wall time, and by wall time.
import pg from "pg";
import { findPostgres, startPostgres } from "../test/helpers/postgres.ts";
import { cpuMs } from "./proc.ts";

const COUNT = Number(process.env.BENCH_STATEMENTS ?? 20_000);
const BLOCKS = 4;

const STATEMENTS = {
  show: {
    text: `SELECT "id", "title", "body", "published", "rating", "user_id", to_char("published_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "published_at" FROM "posts" WHERE "id" = $1`,
    values: (i: number) => [(i % 1000) + 1],
  },
  list: {
    text: `SELECT "id", "title", "body", "published", "rating", "user_id", "published_at" FROM "posts" WHERE "published" = $1 AND "rating" >= $2 ORDER BY "rating" DESC, "id" LIMIT $3`,
    values: (i: number) => [i % 2 === 0, i % 50, 21],
  },
  create: {
    text: `INSERT INTO "posts" ("title", "body", "published", "rating", "user_id", "published_at") VALUES ($1, $2, $3, $4, $5, $6) RETURNING "id", "title", "body", "published", "rating", "user_id", "published_at"`,
    values: (i: number) => [`Post ${i}`, null, true, i % 100, 1, "2024-01-01T00:00:00Z"],
  },
} as const;

function run(client: pg.Client, statement: pg.QueryConfig): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(statement, (error) => (error ? reject(error) : resolve()));
  });
}

const bin = findPostgres();
if (!bin) throw new Error("PostgreSQL's server programs are not installed");
const postgres = await startPostgres(bin);
try {
  const client = new pg.Client({ connectionString: `${postgres.url}/postgres` });
  await client.connect();
  await client.query(`CREATE TABLE posts (id serial PRIMARY KEY, title varchar(200) NOT NULL, body text,
    published boolean NOT NULL DEFAULT false, rating double precision, user_id integer NOT NULL,
    published_at timestamptz(0));
    CREATE INDEX ON posts (user_id);
    INSERT INTO posts (title, body, published, rating, user_id, published_at)
    SELECT 'Post ' || i, 'Body ' || i, i % 2 = 0, i % 100, 1, '2024-01-01T00:00:00Z' FROM generate_series(1, 1000) i;
    ANALYZE posts`);
  const backend = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  const load = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`${COUNT} statements a block, ${BLOCKS} blocks each, load average ${load} at the start`);
  console.log(
    `| statement | named µs CPU (backend) | unnamed µs CPU | unnamed ÷ named | named µs wall | unnamed µs wall |`,
  );
  console.log(`|---|--:|--:|--:|--:|--:|`);
  for (const [name, { text, values }] of Object.entries(STATEMENTS)) {
    const cpu = { named: [] as number[], unnamed: [] as number[] };
    const wall = { named: [] as number[], unnamed: [] as number[] };
    for (let block = 0; block < BLOCKS * 2; block++) {
      const kind = block % 2 === Math.floor(block / 2) % 2 ? "named" : "unnamed";
      const cpuBefore = cpuMs(backend);
      const start = performance.now();
      for (let i = 0; i < COUNT; i++) {
        await run(
          client,
          kind === "named" ? { name: `bench.${name}`, text, values: values(i) } : { text, values: values(i) },
        );
      }
      wall[kind].push(((performance.now() - start) * 1000) / COUNT);
      cpu[kind].push(((cpuMs(backend) - cpuBefore) * 1000) / COUNT);
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    const [cn, cu, wn, wu] = [median(cpu.named), median(cpu.unnamed), median(wall.named), median(wall.unnamed)];
    console.log(
      `| ${name} | ${cn.toFixed(1)} | ${cu.toFixed(1)} | ${(cu / cn).toFixed(2)} | ${wn.toFixed(1)} | ${wu.toFixed(1)} |`,
    );
  }
  const after = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`load average ${after} at the end`);
  await client.end();
} finally {
  await postgres.stop();
}
