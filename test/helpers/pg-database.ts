import pg from "pg";

let counter = 0;

/**
 * A fresh database on the test run's PostgreSQL server, empty or a copy of the database `template`
 * (which nobody may be connected to); returns its URL.
 */
export async function createDatabase(serverUrl: string, prefix: string, template?: string): Promise<string> {
  const name = `${prefix}_${process.pid}_${++counter}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  } finally {
    await client.end();
  }
  return `${serverUrl}/${name}`;
}
