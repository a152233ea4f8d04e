// Readings from /proc (Linux): a process's memory and CPU time, the whole machine's CPU time.
import { readdirSync, readFileSync } from "node:fs";

/** VmRSS and VmHWM (peak RSS) of a process, in MB. */
export function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: field("VmRSS"), peakMb: field("VmHWM") };
}

const TICK_MS = 10; // USER_HZ is 100 on Linux for every architecture node runs on

/** CPU time (user + system, all threads) the process has used, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // After "pid (comm) ", field 3 (state) is index 0: utime is field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** The whole machine's CPU time so far, ms: busy (neither idle nor iowait) and stolen by the hypervisor. */
export function machineCpuMs(): { busyMs: number; stealMs: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user)
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
  return { busyMs: (user! + nice! + system! + irq! + softirq!) * TICK_MS, stealMs: steal! * TICK_MS };
}

/** The parent of a process (field 4 of /proc/<pid>/stat), or undefined once it has exited. */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/**
 * A process and all its descendants (a cluster primary and its workers), the root first. Scans
 * /proc for parent links (this kernel has no /proc/<pid>/task/<tid>/children).
 */
export function processTree(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const siblings = byParent.get(parent);
    if (siblings) siblings.push(pid);
    else byParent.set(parent, [pid]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(byParent.get(tree[i]!) ?? []));
  return tree;
}

/**
 * VmRSS and VmHWM summed over a process and its descendants, MB; one process gives its own
 * figures. A sum of RSS counts the pages the processes share (node's code, shared libraries)
 * once per process, so it overstates what a cluster adds to the machine a little.
 */
export function treeMemory(root: number): { rssMb: number; peakMb: number; processes: number } {
  const tree = processTree(root);
  let rssMb = 0;
  let peakMb = 0;
  for (const pid of tree) {
    const reading = memory(pid);
    rssMb += reading.rssMb;
    peakMb += reading.peakMb;
  }
  return { rssMb, peakMb, processes: tree.length };
}

/**
 * CPU time (user + system) of a process and its descendants, with that of the children they have
 * waited for (the nested npm and esbuild of an `npm start`), ms; 0 for a process that has exited.
 */
export function treeCpuMs(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // utime, stime, cutime, cstime: fields 14 to 17.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** CPU time (user + system) summed over the given processes, ms. Throws when one has exited. */
export function cpuMsOf(pids: number[]): number {
  return pids.reduce((total, pid) => total + cpuMs(pid), 0);
}
