/** Table columns stored differently from how the API shows them (SQLite has no boolean or date type). */
export const STORED_KINDS: Record<string, "boolean" | "datetime" | undefined> = {
  "users.active": "boolean",
  "users.created_at": "datetime",
  "posts.published": "boolean",
  "posts.published_at": "datetime",
};
