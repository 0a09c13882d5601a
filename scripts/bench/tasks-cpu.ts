// CPU accounting for the task benchmark: the service and its embedded Postgres are a process tree,
// and the machine's idle/iowait share says whether a run was CPU-bound or waiting on the disk.
import fs from "node:fs";
import { cpuMilliseconds } from "./server-process";

/** `pid` and all its descendants (the service's Postgres postmaster and backends), from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Exited while we looked.
    }
  }
  const tree: number[] = [];
  const visit = (node: number) => {
    tree.push(node);
    for (const child of children.get(node) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

function command(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

function safeCpu(pid: number): number {
  try {
    return cpuMilliseconds(pid);
  } catch {
    return 0;
  }
}

export interface CpuSnapshot {
  /** The service process itself (API, worker, libSQL: one Bun process). */
  serviceMs: number;
  /** Its descendants: Postgres (postmaster, backends, background processes). */
  postgresMs: number;
  /** This benchmark process (the HTTP client). */
  clientMs: number;
  /** Machine-wide jiffies from /proc/stat. */
  machine: { total: number; idle: number; iowait: number };
}

export function cpuSnapshot(servicePid: number): CpuSnapshot {
  const tree = processTree(servicePid);
  const descendants = tree.filter((pid) => pid !== servicePid);
  const usage = process.cpuUsage();
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return {
    serviceMs: safeCpu(servicePid),
    postgresMs: descendants.reduce((sum, pid) => sum + safeCpu(pid), 0),
    clientMs: (usage.user + usage.system) / 1000,
    machine: { total: fields.slice(0, 8).reduce((sum, value) => sum + value, 0), idle: fields[3]!, iowait: fields[4]! },
  };
}

export interface CpuUse {
  serviceMs: number;
  postgresMs: number;
  clientMs: number;
  /** Share of all cores' time spent idle / in iowait during the interval. */
  idleShare: number;
  iowaitShare: number;
  /** CPU time of everything else on the machine (other processes, the kernel's own threads), in ms. */
  otherMs: number;
}

export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuUse {
  const total = after.machine.total - before.machine.total;
  const idle = after.machine.idle - before.machine.idle + after.machine.iowait - before.machine.iowait;
  const mine = after.serviceMs - before.serviceMs + after.postgresMs - before.postgresMs + after.clientMs - before.clientMs;
  return {
    serviceMs: after.serviceMs - before.serviceMs,
    postgresMs: after.postgresMs - before.postgresMs,
    clientMs: after.clientMs - before.clientMs,
    idleShare: total > 0 ? (after.machine.idle - before.machine.idle) / total : 0,
    iowaitShare: total > 0 ? (after.machine.iowait - before.machine.iowait) / total : 0,
    // /proc/stat counts in USER_HZ (100 per second).
    otherMs: Math.max(0, (total - idle) * 10 - mine),
  };
}

/** For the report: which processes make up the service tree. */
export function describeTree(servicePid: number): string {
  const counts = new Map<string, number>();
  for (const pid of processTree(servicePid).slice(1)) counts.set(command(pid), (counts.get(command(pid)) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${count}× ${name}`).join(", ");
}
