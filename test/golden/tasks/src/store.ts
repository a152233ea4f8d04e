import type { Db } from "./db.js";
import { tasksTable } from "./tables/tasks.js";
import { openTasksQuery } from "./queries/open_tasks.js";

/** Every table's and query's prepared statements, made once at start-up and shared by all versions. */
export function openStore(db: Db) {
  return {
    tables: {
      tasks: tasksTable(db),
    },
    queries: {
      open_tasks: openTasksQuery(db),
    },
  };
}

export type Store = ReturnType<typeof openStore>;
