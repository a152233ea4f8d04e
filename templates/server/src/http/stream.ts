import { Readable } from "node:stream";

/** Records read and written at a time when a whole table is listed. */
export const LIST_BATCH = 1000;

/**
 * A whole table's list answer, written batch by batch as it is read in id order (each batch after
 * the last id of the one before), so the server's memory does not grow with the table. The bytes
 * are those of the answer built at once: the envelope, then each record as JSON.
 */
export function streamedList<Record extends { id: unknown }>(
  first: Record[],
  next: (after: Record["id"]) => Record[] | Promise<Record[]>,
): Readable {
  async function* chunks() {
    yield '{"success":true,"message":"Data found.","data":[';
    let batch = first;
    let separator = "";
    while (batch.length > 0) {
      let chunk = "";
      for (const record of batch) {
        chunk += separator + JSON.stringify(record);
        separator = ",";
      }
      yield chunk;
      if (batch.length < LIST_BATCH) break;
      batch = await next(batch.at(-1)!.id);
    }
    yield "]}";
  }
  return Readable.from(chunks(), { objectMode: false });
}
