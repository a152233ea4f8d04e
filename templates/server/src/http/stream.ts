import { Readable } from "node:stream";
import type { ListQuery } from "./list.js";

/** Records read and written at a time when a whole table is listed. */
export const LIST_BATCH = 1000;

/** The whole table's first batch, in id order: a constant, so its statement is built once. */
export const WHOLE_TABLE: ListQuery = { filters: [], sort: [], limit: LIST_BATCH, count: false };

/** A batch of records as JSON text, joined by commas: how many, and the last one's id. */
export interface ListBatch<Id> {
  json: string | null;
  size: number;
  last: Id | null;
}

/** Records as a batch of JSON text. */
export function jsonBatch<Record extends { id: unknown }>(records: Record[]): ListBatch<Record["id"]> {
  let json = "";
  for (const record of records) json += (json ? "," : "") + JSON.stringify(record);
  return { json, size: records.length, last: records.at(-1)?.id ?? null };
}

/**
 * A whole table's list answer, written batch by batch as it is read in id order (each batch after
 * the last id of the one before), so the server's memory does not grow with the table. The bytes
 * are those of the answer built at once: the envelope, then each record as JSON.
 */
export function streamedList<Id>(
  first: ListBatch<Id>,
  next: (after: Id) => ListBatch<Id> | Promise<ListBatch<Id>>,
): Readable {
  async function* chunks() {
    yield '{"success":true,"message":"Data found.","data":[';
    let { json, size, last } = first;
    let separator = "";
    while (size > 0) {
      yield separator + json;
      // Written: let it go before the next read, so no collection during it finds it alive.
      json = null;
      separator = ",";
      if (size < LIST_BATCH) break;
      ({ json, size, last } = await next(last!));
    }
    yield "]}";
  }
  return Readable.from(chunks(), { objectMode: false });
}
