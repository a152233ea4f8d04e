import type { Db } from "./db.js";
import { companiesTable } from "./tables/companies.js";
import { contactsTable } from "./tables/contacts.js";
import { dealsTable } from "./tables/deals.js";
import { pipelineQuery } from "./queries/pipeline.js";

/** Every table's and query's prepared statements, made once at start-up and shared by all versions. */
export function openStore(db: Db) {
  return {
    tables: {
      companies: companiesTable(db),
      contacts: contactsTable(db),
      deals: dealsTable(db),
    },
    queries: {
      pipeline: pipelineQuery(db),
    },
  };
}

export type Store = ReturnType<typeof openStore>;
