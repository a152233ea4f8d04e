import { parentPort } from "node:worker_threads";
import type { Options } from "prettier";
import { formatWithPrettier, type FormatJob } from "../emit/format.ts";

/** A thread of the format pool (format-pool.ts): lays out the files it is sent, one answer per file. */
parentPort!.on("message", ({ id, job, config }: { id: number; job: FormatJob; config: Options }) => {
  formatWithPrettier(job, config).then(
    (text) => parentPort!.postMessage({ id, text }),
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
