// One load run with autocannon (used as a library), in a process of its own so that the load
// generator never shares the server's process or CPU accounting. Started by bench/lib.ts with
// child_process.fork: it receives a LoadSpec over IPC, answers with a LoadResult and exits.
//
// autocannon's own latency histogram has a 1 ms floor (it records integers), which hides
// everything below a millisecond; each response's time (float ms) is kept here instead and the
// percentiles are computed from all of them.
import autocannon from "autocannon";
import { cpuMsOf, machineCpuMs, processTree } from "./proc.ts";

export interface LoadSpec {
  /** Base URL of the server, e.g. http://127.0.0.1:40123 */
  url: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** For POST: a JSON body template; "{n}" in a string value is replaced by a unique counter. */
  body?: Record<string, unknown>;
  /** Distinguishes the unique values of this run from every other run's. */
  tag: string;
  /** Seconds of load. */
  duration: number;
  connections: number;
  /** The server's process: its CPU time and its descendants' (cluster workers) are read right before and after the run. */
  serverPid: number;
}

export interface LoadResult {
  /** Completed 2xx responses per second over the run. */
  rps: number;
  /** 2xx latency percentiles, milliseconds. */
  p50: number;
  p99: number;
  mean: number;
  responses: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds, as autocannon measured the run. */
  duration: number;
  /** CPU time during the run (user + system), ms: the server's (all its processes), this load process's, the whole machine's. */
  serverCpuMs: number;
  /** How many processes the server had during the run (1, or a cluster's primary + workers). */
  serverProcesses: number;
  loadCpuMs: number;
  machineBusyMs: number;
  /** CPU time the hypervisor gave to others while the machine wanted it, during the run, ms. */
  stealMs: number;
  /** The first non-2xx status seen, to explain a failed run. */
  firstBadStatus?: number;
}

function bodyFactory(template: Record<string, unknown>, tag: string): () => string {
  let counter = 0;
  const json = JSON.stringify(template);
  return () => json.replaceAll("{n}", `${tag}-${++counter}`);
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  let non2xx = 0;
  let firstBadStatus: number | undefined;
  const nextBody = spec.body ? bodyFactory(spec.body, spec.tag) : undefined;
  const serverPids = processTree(spec.serverPid);
  const serverBefore = cpuMsOf(serverPids);
  const machineBefore = machineCpuMs();
  const cpuBefore = process.cpuUsage();

  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    pipelining: 1,
    duration: spec.duration,
    timeout: 10,
    requests: [
      {
        method: spec.method,
        path: spec.path,
        headers: spec.headers,
        ...(nextBody && { setupRequest: (request: autocannon.Request) => ({ ...request, body: nextBody() }) }),
      },
    ],
  });
  instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    else {
      non2xx++;
      firstBadStatus ??= statusCode;
    }
  });
  const result = await instance;
  const cpu = process.cpuUsage(cpuBefore);
  const machineAfter = machineCpuMs();
  // Throws if a process of the server (a cluster worker) exited during the run: its CPU time is lost.
  const serverCpuMs = cpuMsOf(serverPids) - serverBefore;

  const sorted = Float64Array.from(latencies).sort();
  const at = (q: number) =>
    sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const sum = latencies.reduce((total, value) => total + value, 0);
  return {
    rps: latencies.length / result.duration,
    p50: at(0.5),
    p99: at(0.99),
    mean: sum / Math.max(1, latencies.length),
    responses: latencies.length,
    non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration: result.duration,
    serverCpuMs,
    serverProcesses: serverPids.length,
    loadCpuMs: (cpu.user + cpu.system) / 1000,
    machineBusyMs: machineAfter.busyMs - machineBefore.busyMs,
    stealMs: machineAfter.stealMs - machineBefore.stealMs,
    ...(firstBadStatus !== undefined && { firstBadStatus }),
  };
}

// Run as a forked child: one spec in, one result out.
if (process.send) {
  process.once("message", (spec: LoadSpec) => {
    runLoad(spec).then(
      (result) => process.send!({ ok: true, result }, () => process.exit(0)),
      (error: Error) => process.send!({ ok: false, error: error.stack ?? String(error) }, () => process.exit(1)),
    );
  });
}
