import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { registerAndLogin, type Session } from "./tasks-client";

export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  url: string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/** The variables an npm script (`start:api`) sets before `bun run`: the role and the runtime's memory settings. */
export function startScriptEnvironment(script: string): Record<string, string> {
  const packageJson = JSON.parse(fs.readFileSync(path.resolve(import.meta.dir, "../../package.json"), "utf8")) as { scripts: Record<string, string> };
  const assignments = packageJson.scripts[script]?.match(/^(?:\w+=\S+\s+)+/)?.[0];
  if (!assignments?.includes("ROLE=api ")) throw new Error(`package.json script ${script} should start with ROLE=api and the runtime's settings`);
  return Object.fromEntries(assignments.trim().split(/\s+/).map((pair) => pair.split("=") as [string, string]));
}
const STOP_TIMEOUT_MS = 30_000;

/** Runs a server entry script in its own Bun process and waits for the `{"port":…}` line it prints. */
export async function startServerProcess(name: string, entry: string, environment: Record<string, string>): Promise<ServerProcess> {
  // BENCH_PROFILE_DIR=<dir>: each server writes a CPU profile there (also as grep-friendly Markdown) when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROFILE_DIR)}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = Bun.spawn([process.execPath, ...profile, "run", path.resolve(import.meta.dir, entry)], {
    // Benchmarks never reach the internet: public host names resolve to loopback.
    env: { ...process.env, IMPORT_RESOLVE: "*=127.0.0.1", ...environment },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const timeout = setTimeout(() => child.kill(), START_TIMEOUT_MS);
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${name} server exited before printing its port (exit code ${await child.exited})`);
    buffered += decoder.decode(value, { stream: true });
  }
  clearTimeout(timeout);
  const { port } = JSON.parse(buffered.slice(0, buffered.indexOf("\n"))) as { port: number };
  // Keep draining stdout so a chatty server never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      process.stderr.write(`[${name}] ${decoder.decode(value)}`);
    }
  })();
  return {
    name,
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      // The service stops its embedded Postgres first, which can take a few seconds.
      const forced = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await child.exited;
      clearTimeout(forced);
    },
  };
}

function statusField(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Resident memory now, in bytes. */
export const residentBytes = (pid: number) => statusField(pid, "VmRSS");

/** The kernel's high-water mark of resident memory since the process started, in bytes. */
export const peakResidentBytes = (pid: number) => statusField(pid, "VmHWM");

/**
 * CPU seconds the process has used (user + system; its own threads, not its children such as
 * Postgres). On a shared machine this, not wall time, is what a piece of work costs.
 */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The 1-minute load average, to print beside timings taken on a machine others may be using. */
export const loadAverage = () => Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

/** User + system CPU time of the whole process (all threads), in milliseconds. */
export function cpuMilliseconds(pid: number): number {
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th, in USER_HZ (100/s).
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Samples a process's RSS every `intervalMs` until stopped and keeps the peak. */
export function watchResidentMemory(pid: number, intervalMs = 100) {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, residentBytes(pid));
    } catch {
      // The process has exited; its earlier samples stand.
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    get peak() {
      return peak;
    },
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** A scratch directory for a benchmark's data; open (0755), so as root the embedded Postgres keeps its cluster inside it. */
export function benchWorkDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/**
 * A benchmark's scratch directory and the service it starts there: `cleanUp` stops the service (SIGTERM, then waits
 * while it drains its worker and stops its embedded Postgres) and removes the directory, also on Ctrl-C.
 */
export function benchScratch(prefix: string) {
  const workDir = benchWorkDir(prefix);
  let service: ServerProcess | undefined;
  const cleanUp = async () => {
    const running = service;
    service = undefined;
    await running?.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  // Ctrl-C: the service sees it too and stops itself; what is left is the work directory.
  process.once("SIGINT", async () => {
    await cleanUp();
    process.exit(130);
  });
  return {
    workDir,
    async start(name: string, entry: string, environment: Record<string, string>): Promise<ServerProcess> {
      service = await startServerProcess(name, entry, environment);
      return service;
    },
    cleanUp,
  };
}

export interface BenchService {
  workDir: string;
  service: ServerProcess;
  session: Session;
}

/**
 * A benchmark against one service (`service-server.ts`, its data in a scratch directory) with a
 * user "bench" logged in; the service stops and the directory goes however `run` ends.
 */
export async function withBenchService(prefix: string, run: (bench: BenchService) => Promise<void>) {
  const scratch = benchScratch(prefix);
  try {
    const service = await scratch.start("service", "service-server.ts", { DATA_DIR: scratch.workDir });
    await run({ workDir: scratch.workDir, service, session: await registerAndLogin(service.url, "bench") });
  } finally {
    await scratch.cleanUp();
  }
}
