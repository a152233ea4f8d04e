import type { TestProject } from "vitest/node";
import { findPostgres, startPostgres } from "../helpers/postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the test run's PostgreSQL server, without a database; empty when there is none. */
    postgresUrl: string;
  }
}

// One throwaway PostgreSQL server for the whole run; each test file creates its own databases.
export default async function setup(project: TestProject) {
  const bin = findPostgres();
  if (!bin) {
    console.warn("\n[tablegen] PostgreSQL is not installed (no initdb/pg_ctl): the PostgreSQL tests are SKIPPED.\n");
    project.provide("postgresUrl", "");
    return;
  }
  const server = await startPostgres(bin);
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
