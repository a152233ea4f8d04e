/**
 * Values as Prisma stores them in SQLite, so that Prisma Client and the generated routes read
 * each other's rows: DateTime as ISO text with milliseconds and a +00:00 offset, Boolean as 0/1.
 */

import { nowToTheSecond } from "./now.js";

/** An RFC 3339 date-time (already validated) as stored text, truncated to whole seconds. */
export function storedDateTime(value: string | null | undefined): string | null {
  if (value == null) return null;
  const normalized = value.replace(" ", "T").replace(/\.\d+/, "").toUpperCase();
  return new Date(normalized).toISOString().slice(0, 19) + ".000+00:00";
}

export function storedNow(): string {
  return nowToTheSecond() + ".000+00:00";
}

export function storedBoolean(value: boolean | null | undefined): number | null {
  return value == null ? null : Number(value);
}

/** Stored date-time text as the API's `YYYY-MM-DDTHH:MM:SSZ`. */
export function apiDateTime(stored: string): string;
export function apiDateTime(stored: string | null): string | null;
export function apiDateTime(stored: string | null): string | null {
  if (stored === null) return null;
  if (stored.length === 29 && stored.endsWith("+00:00")) return stored.slice(0, 19) + "Z";
  const iso = /[Tt]/.test(stored) ? stored : stored.replace(" ", "T") + "Z";
  return new Date(iso).toISOString().slice(0, 19) + "Z";
}

export function apiBoolean(stored: number): boolean;
export function apiBoolean(stored: number | null): boolean | null;
export function apiBoolean(stored: number | null): boolean | null {
  return stored === null ? null : stored === 1;
}
