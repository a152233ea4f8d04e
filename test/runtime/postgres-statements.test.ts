import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { exampleDatabase, sharedExample } from "../helpers/shared-examples.ts";

// The generated PostgreSQL store runs named prepared statements: each pooled connection prepares a
// statement the first time it runs it and reuses it afterwards. The generated modules are imported
// in process with a pool of one connection, so pg_prepared_statements (which is per session) can be
// read through that same connection after the store has been used.

type Operation = (...args: any[]) => Promise<any>;
type Table = Record<"page" | "find" | "create" | "update" | "remove", Operation>;

/** The whole table, a batch at a time: what a list without parameters runs. */
const ALL = { filters: [], sort: [], limit: 1000, count: false };
interface Store {
  tables: Record<"companies" | "contacts" | "deals", Table>;
  queries: Record<"pipeline", Operation>;
}
interface Prepared {
  name: string;
  statement: string;
  prepare_time: string;
  runs: number;
}

const postgresUrl = inject("postgresUrl");

/** The generated db.ts's pool: `query` runs a statement on a pooled connection. */
interface Db {
  pool: { end(): Promise<void> };
  query<Row>(text: string): Promise<{ rows: Row[] }>;
}

let pool: Db;
let store: Store;

/** One successful use of every operation of every table and of the custom query. */
async function workload(round: number) {
  const { companies, contacts, deals } = store.tables;
  const company = await companies.create({ name: `Acme ${round}`, website: "https://acme.example" });
  await companies.find(company.id);
  await companies.page(ALL);
  await companies.update(company.id, { website: null });

  const contact = await contacts.create({ company_id: company.id, full_name: "Ada Lovelace", vip: true });
  await contacts.find(String(contact.id));
  await contacts.page(ALL);
  await contacts.update(String(contact.id), { phone: "+44 20 7946 0958" });

  const deal = await deals.create({ contact_id: contact.id, title: "Engines", amount: 1250.5 });
  await deals.find(String(deal.id));
  await deals.page(ALL);
  await deals.update(String(deal.id), { closes_at: "2024-03-10T12:30:45Z" });

  expect(await store.queries.pipeline({ min_amount: "1000" })).toContainEqual(
    expect.objectContaining({ company: `Acme ${round}`, deals: 1, total: 1250.5 }),
  );

  expect(await deals.remove(String(deal.id))).toBe(true);
  expect(await contacts.remove(String(contact.id))).toBe(true);
  expect(await companies.remove(company.id)).toBe(true);
}

/** The constraint failures a client can provoke: 409 unique, 400 missing reference, 409 restricted delete. */
async function failures(round: number) {
  const { companies, contacts, deals } = store.tables;
  const company = await companies.create({ name: `Failing ${round}` });
  await expect(companies.create({ name: `Failing ${round}` })).rejects.toThrow("Invalid request: name already exists");
  await expect(
    contacts.create({ company_id: "00000000-0000-4000-8000-000000000000", full_name: "Nobody" }),
  ).rejects.toThrow("Invalid request: company_id refers to no companies record");
  const contact = await contacts.create({ company_id: company.id, full_name: "Grace Hopper" });
  await deals.create({ contact_id: contact.id, title: "Compilers", amount: 10 });
  await expect(contacts.remove(String(contact.id))).rejects.toThrow("Record is referenced by deals");
}

/** The session's prepared statements, read through the pool's only connection. */
async function preparedStatements(): Promise<Prepared[]> {
  const { rows } = await pool.query<Prepared>(
    "SELECT name, statement, prepare_time::text, generic_plans + custom_plans AS runs FROM pg_prepared_statements ORDER BY name",
  );
  return rows.map((row) => ({ ...row, runs: Number(row.runs) }));
}

const backendPid = async () => (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;

describe.skipIf(!postgresUrl)("prepared statements on PostgreSQL", () => {
  beforeAll(async () => {
    const { url } = await exampleDatabase("crm");
    const { dir } = await sharedExample("crm");
    const { loadConfig } = await import(join(dir, "src/config.ts"));
    const { openDatabase } = await import(join(dir, "src/db.ts"));
    const { openStore } = await import(join(dir, "src/store.ts"));
    pool = openDatabase(loadConfig({ DATABASE_URL: url, API_SIGNATURE_KEY: "key", DATABASE_POOL_SIZE: "1" }));
    store = openStore(pool);
  });

  afterAll(async () => {
    await pool?.pool.end();
  });

  it("prepares each statement once per connection and reuses it on every later call", async () => {
    const pid = await backendPid();
    expect(await preparedStatements()).toEqual([]);

    await workload(0);
    const first = await preparedStatements();
    // At least a list shape, find, insert, update and remove of the three tables, and the custom query.
    expect(first.length).toBeGreaterThanOrEqual(3 * 5 + 1);
    expect(first.map((row) => row.name)).toContain("deals.list.1");
    expect(first.map((row) => row.name)).toContain("pipeline");
    // One name per statement and one statement per name: no statement is prepared twice.
    expect(new Set(first.map((row) => row.name)).size).toBe(first.length);
    expect(new Set(first.map((row) => row.statement)).size).toBe(first.length);
    for (const row of first) expect(row.runs, row.name).toBeGreaterThanOrEqual(1);

    for (let round = 1; round <= 10; round++) await workload(round);
    expect(await backendPid()).toBe(pid); // still the same session
    const later = await preparedStatements();
    // The same statements, never re-prepared, each run again on every round.
    expect(later.map(({ name, statement, prepare_time }) => ({ name, statement, prepare_time }))).toEqual(
      first.map(({ name, statement, prepare_time }) => ({ name, statement, prepare_time })),
    );
    later.forEach((row, index) => expect(row.runs - first[index]!.runs, row.name).toBeGreaterThanOrEqual(10));
  });

  // pg's own pool.query() releases its client with the query's error, and a client released with an
  // error is destroyed: every constraint failure would close the connection and every statement it
  // had prepared. The generated db.ts returns connections that PostgreSQL answered with an error.
  it("keeps its connection and its prepared statements after a constraint failure", async () => {
    await workload(100);
    const pid = await backendPid();
    const before = (await preparedStatements()).map((row) => row.name);
    expect(before.length).toBeGreaterThanOrEqual(3 * 5 + 1);

    await failures(100);
    expect(await backendPid()).toBe(pid);
    const after = (await preparedStatements()).map((row) => row.name);
    expect(after).toEqual(expect.arrayContaining(before));
  });
});
