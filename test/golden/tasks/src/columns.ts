/** Table columns stored differently from how the API shows them (SQLite has no boolean or date type). */
export const STORED_KINDS: Record<string, "boolean" | "datetime" | undefined> = {
  "tasks.due_at": "datetime",
  "tasks.done": "boolean",
};
