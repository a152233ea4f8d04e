// Each test file runs in a worker process that vitest forked, with an IPC channel to it. When the
// test run ends abnormally (the vitest process killed, or stopped before it could end its workers),
// the channel closes: the worker ends too, and with it what it started (generated servers through
// execa, its PostgreSQL's watchdog pipe: test/helpers/postgres.ts), instead of running on orphaned.
const guarded = Symbol.for("tablegen.worker-exits-with-the-run");
const state = globalThis as { [guarded]?: boolean };
if (!state[guarded] && process.send !== undefined) {
  state[guarded] = true;
  process.once("disconnect", () => process.exit(1));
}
