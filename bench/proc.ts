// Readings from /proc (Linux): a process's memory and CPU time, the whole machine's CPU time.
import { readFileSync } from "node:fs";

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
