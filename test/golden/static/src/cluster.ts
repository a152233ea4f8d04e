import cluster from "node:cluster";
import { availableParallelism } from "node:os";

// `npm run cluster`: one server process per CPU core (or WORKERS), sharing the port. The primary
// only supervises: it replaces a worker that dies after it was serving, and passes on SIGTERM.
if (cluster.isPrimary) {
  const workers = Number(process.env.WORKERS) || availableParallelism();
  let stopping = false;
  const serving = new Set<number>();
  cluster.on("listening", (worker) => serving.add(worker.id));
  cluster.on("exit", (worker, code, signal) => {
    if (stopping || !serving.delete(worker.id)) return;
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    cluster.fork();
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    });
  }
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  await import("./server.js");
}
