import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Options } from "prettier";
import { formatInThread, type FormatFiles, type FormatJob } from "../emit/format.ts";

/**
 * Prettier on worker threads, up to `threads` (generate's TABLEGEN_FORMAT_THREADS, one per core by
 * default): a large project's TypeScript and Markdown take most of `generate`'s time, and each file
 * is laid out on its own. Each thread warms prettier up on its own (its JIT: 1.5-2 s of CPU), so
 * threads start only for a first batch with at least PER_THREAD characters for each of two or more,
 * and end with `close()`; a smaller batch is laid out in this thread.
 */
export interface FormatPool {
  formatFiles: FormatFiles;
  /** How many threads have started (none until a batch is large enough for two). */
  readonly started: number;
  close(): Promise<void>;
}

/**
 * Text a thread must have to lay out for its warm-up to pay: on 2 cores, 2 threads gained nothing at
 * 200 synthetic tables (2.9 MB) and 15 % at 1,000 (14 MB) when idle, at +2-6 s of CPU (bench/RESULTS.md).
 */
export const PER_THREAD = 3_000_000;
/** Files sent to a thread ahead of its answers, so that it never waits for the next one. */
const AHEAD = 2;

interface Pending {
  id: number;
  job: FormatJob;
  config: Options;
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  running: Map<number, Pending>;
}

export function formatPool(threads = availableParallelism(), perThread = PER_THREAD): FormatPool {
  let pool: Thread[] | undefined;
  const queue: Pending[] = [];
  let nextId = 0;

  const dispatch = () => {
    for (const thread of pool ?? []) {
      while (thread.running.size < AHEAD && queue.length > 0) {
        const pending = queue.shift()!;
        thread.running.set(pending.id, pending);
        thread.worker.postMessage({ id: pending.id, job: pending.job, config: pending.config });
      }
      // An idle thread does not keep the process alive.
      if (thread.running.size > 0) thread.worker.ref();
      else thread.worker.unref();
    }
  };

  const start = (count: number): Thread[] =>
    Array.from({ length: count }, () => {
      const thread: Thread = { worker: startWorker(), running: new Map() };
      thread.worker.on("message", (answer: { id: number; text?: string; error?: string }) => {
        const pending = thread.running.get(answer.id)!;
        thread.running.delete(answer.id);
        if (answer.error === undefined) pending.resolve(answer.text!);
        else pending.reject(new Error(answer.error));
        dispatch();
      });
      thread.worker.on("error", (error) => {
        for (const pending of thread.running.values()) pending.reject(error);
        thread.running.clear();
        pool = pool?.filter((other) => other !== thread);
        if (pool?.length === 0) for (const pending of queue.splice(0)) pending.reject(error);
      });
      return thread;
    });

  const formatFiles: FormatFiles = (jobs, config) => {
    const size = jobs.reduce((total, job) => total + job.text.length, 0);
    if (pool === undefined) {
      const worth = Math.min(threads, Math.floor(size / perThread));
      if (worth < 2) return formatInThread(jobs, config);
      pool = start(worth);
    }
    // Closed, or every thread failed: this thread lays the files out.
    if (pool.length === 0) return formatInThread(jobs, config);
    const answers = jobs.map(
      (job) => new Promise<string>((resolve, reject) => queue.push({ id: nextId++, job, config, resolve, reject })),
    );
    // The largest files first: the last ones to finish are then small.
    queue.sort((a, b) => b.job.text.length - a.job.text.length);
    dispatch();
    return Promise.all(answers);
  };

  return {
    formatFiles,
    get started() {
      return pool?.length ?? 0;
    },
    async close() {
      const threads = pool ?? [];
      pool = [];
      await Promise.all(threads.map(({ worker }) => worker.terminate()));
    },
  };
}

/**
 * The worker's module: compiled next to this one in dist/ (`npm run build` bundles it as an entry
 * of its own), or the TypeScript source through tsx, as bin/tablegen.js runs the CLI from a clone.
 */
function startWorker(): Worker {
  if (import.meta.url.endsWith(".js")) return new Worker(new URL("./format-worker.js", import.meta.url));
  const tsx = import.meta.resolve("tsx/esm/api");
  const source = new URL("./format-worker.ts", import.meta.url).href;
  const boot = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(source)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}
