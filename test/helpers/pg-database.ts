import pg from "pg";

let counter = 0;

/** A fresh, empty database on the test run's PostgreSQL server; returns its URL. */
export async function createDatabase(serverUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${process.pid}_${++counter}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return `${serverUrl}/${name}`;
}
