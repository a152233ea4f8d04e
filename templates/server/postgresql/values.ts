/** An RFC 3339 date-time (already validated) truncated to whole seconds, as PostgreSQL takes it. */
export function storedDateTime(value: string | null | undefined): string | null {
  if (value == null) return null;
  const normalized = value.replace(" ", "T").replace(/\.\d+/, "").toUpperCase();
  return new Date(normalized).toISOString().slice(0, 19) + "Z";
}

export function storedNow(): string {
  return new Date().toISOString().slice(0, 19) + "Z";
}
