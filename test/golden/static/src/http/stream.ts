import { Readable } from "node:stream";
import { setImmediate as turn } from "node:timers/promises";
import { LIST_BATCH } from "../db.js";
import type { ListQuery } from "./list.js";

/** The whole table's first batch, in id order: a constant, so its statement is built once. */
export const WHOLE_TABLE: ListQuery = { filters: [], sort: [], limit: LIST_BATCH, count: false };

/**
 * Records written in one piece of a streamed answer. Pieces stay small strings, which V8 frees in its
 * cheap young-generation collections, where a whole batch as one string would be a large object
 * kept until a full collection.
 */
export const LIST_PART = 100;

/** A batch of records as pieces of JSON text (records joined by commas): how many, and the last one's id. */
export interface ListBatch<Id> {
  parts: string[];
  size: number;
  last: Id | null;
}

/** Records as a batch of JSON text. */
export function jsonBatch<Record extends { id: unknown }>(records: Record[]): ListBatch<Record["id"]> {
  const parts: string[] = [];
  for (let start = 0; start < records.length; start += LIST_PART) {
    parts.push(
      records
        .slice(start, start + LIST_PART)
        .map((record) => JSON.stringify(record))
        .join(","),
    );
  }
  return { parts, size: records.length, last: records.at(-1)?.id ?? null };
}

/** A piece of a batch as the database writes it: its records' JSON text, how many, the last id. */
export interface ListPart<Id> {
  json: string;
  size: number;
  last: Id;
}

/** A batch from its pieces in id order (their JSON rewritten by `write` when given). */
export function partsBatch<Id>(rows: ListPart<Id>[], write = (json: string) => json): ListBatch<Id> {
  let size = 0;
  for (const row of rows) size += row.size;
  return { parts: rows.map((row) => write(row.json)), size, last: rows.at(-1)?.last ?? null };
}

/**
 * A whole table's list answer, written batch by batch as it is read in id order (each batch after
 * the last id of the one before), so the server's memory does not grow with the table. The bytes
 * are those of the answer built at once: the envelope, then each record as JSON. A batch read at
 * once (SQLite reads on this thread) is followed by a turn of the event loop, so other requests,
 * and other streams, are served between batches rather than after the whole table.
 */
export function streamedList<Id>(
  first: ListBatch<Id>,
  next: (after: Id) => ListBatch<Id> | Promise<ListBatch<Id>>,
): Readable {
  async function* chunks() {
    yield '{"success":true,"message":"Data found.","data":[';
    let { parts, size, last } = first;
    let separator = "";
    while (size > 0) {
      for (const part of parts) {
        yield separator + part;
        separator = ",";
      }
      // Written: let it go before the next read, so no collection during it finds it alive.
      parts = [];
      if (size < LIST_BATCH) break;
      const batch = next(last!);
      ({ parts, size, last } = batch instanceof Promise ? await batch : (await turn(), batch));
    }
    yield "]}";
  }
  return Readable.from(chunks(), { objectMode: false });
}
