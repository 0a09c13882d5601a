// A closed-loop HTTP load generator: `connections` concurrent keep-alive request loops. It drives
// several servers in alternating slices (A B B A A B …), so a burst of outside load on the machine
// hits each of them alike, and it runs in its own process (see `runLoad`) so it never shares an
// event loop with a server.
import fs from "node:fs";
import { cpuMilliseconds } from "./server-process";

export interface LoadTarget {
  name: string;
  baseUrl: string;
  /** The server's process, whose CPU time and open connections are read from /proc. */
  pid: number;
  port: number;
  /** What this target is sent when it differs from the spec's (two kinds of request to one server, compared slice by slice). */
  request?: TargetRequest;
}

export interface TargetRequest {
  method: "GET" | "POST";
  paths: string[];
  /** Bodies taken in turn, like `paths`. */
  bodies?: string[];
  headers?: Record<string, string>;
  token?: string;
}

export interface LoadSpec {
  targets: LoadTarget[];
  method: "GET" | "POST";
  /** Request paths, taken in turn by each loop (so reads spread over many notes and tags). */
  paths: string[];
  body?: string;
  token: string;
  connections: number;
  /** Unrecorded load on each target before the first slice. */
  warmupMs: number;
  /** Recorded slices per target, each after `settleMs` of unrecorded load on the new target. */
  slices: number;
  sliceMs: number;
  settleMs: number;
}

export interface LoadResult {
  requests: number;
  /** Responses outside 2xx, plus failed requests (status 0). */
  errors: number;
  statuses: Record<string, number>;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time (all threads) per request: the cost of a request, whatever the contention. */
  serverCpuMsPerRequest: number;
  /** Established connections to the server, the fewest seen mid-slice. */
  connections: number;
}

// Bounds the memory of the latency record (a 5 s window at 10k requests/s needs 50k).
const MAX_SAMPLES = 1_000_000;

/** Runs the generator in a child process and returns one result per target, in order. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult[]> {
  const child = Bun.spawn([process.execPath, "run", import.meta.path, JSON.stringify(spec)], { stdout: "pipe", stderr: "inherit" });
  const [output, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (exitCode !== 0) throw new Error(`load generator exited with ${exitCode}`);
  return JSON.parse(output.trim().split("\n").at(-1)!) as LoadResult[];
}

class Recorder {
  latencies = new Float64Array(MAX_SAMPLES);
  requests = 0;
  errors = 0;
  statuses: Record<string, number> = {};
  recordedMs = 0;
  serverCpuMs = 0;
  connections = Number.POSITIVE_INFINITY;

  record(latencyMs: number, status: number) {
    if (this.requests < MAX_SAMPLES) this.latencies[this.requests] = latencyMs;
    this.requests++;
    if (status < 200 || status >= 300) {
      this.errors++;
      this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    }
  }

  result(): LoadResult {
    const sorted = this.latencies.subarray(0, Math.min(this.requests, MAX_SAMPLES)).sort();
    return {
      requests: this.requests,
      errors: this.errors,
      statuses: this.statuses,
      requestsPerSecond: this.requests / (this.recordedMs / 1000),
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      serverCpuMsPerRequest: this.serverCpuMs / Math.max(1, this.requests),
      connections: Number.isFinite(this.connections) ? this.connections : 0,
    };
  }
}

async function generate(spec: LoadSpec): Promise<LoadResult[]> {
  const requests = spec.targets.map((target) => {
    const request: TargetRequest = target.request ?? { method: spec.method, paths: spec.paths, bodies: spec.body === undefined ? undefined : [spec.body] };
    const headers: Record<string, string> = { authorization: `Bearer ${request.token ?? spec.token}`, ...request.headers };
    if (request.bodies) headers["content-type"] ??= "application/json";
    return { ...request, headers };
  });
  const recorders = spec.targets.map(() => new Recorder());
  // The loops read these: which target to send to, and whether its completions count.
  let active = 0;
  let recording = false;
  let stopping = false;

  const loop = async (first: number) => {
    for (let next = first; !stopping; next += spec.connections) {
      const target = active;
      const request = requests[target]!;
      const url = spec.targets[target]!.baseUrl + request.paths[next % request.paths.length];
      const body = request.bodies?.[next % request.bodies.length];
      const startedAt = performance.now();
      let status = 0;
      try {
        const response = await fetch(url, { method: request.method, headers: request.headers, body });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        // A refused or reset connection counts as an error; pause so a dead server is not spun on.
        await Bun.sleep(10);
      }
      if (recording && target === active) recorders[target]!.record(performance.now() - startedAt, status);
    }
  };

  const schedule = async () => {
    for (const [index] of spec.targets.entries()) {
      active = index;
      await Bun.sleep(spec.warmupMs);
    }
    for (let slice = 0; slice < spec.slices; slice++) {
      // A B, then B A: a steady drift in outside load falls on both equally.
      const order = spec.targets.map((_, index) => index);
      if (slice % 2 === 1) order.reverse();
      for (const index of order) {
        const target = spec.targets[index]!;
        const recorder = recorders[index]!;
        active = index;
        await Bun.sleep(spec.settleMs);
        const cpuBefore = cpuMilliseconds(target.pid);
        const startedAt = performance.now();
        recording = true;
        await Bun.sleep(spec.sliceMs / 2);
        recorder.connections = Math.min(recorder.connections, establishedConnections(target.port));
        await Bun.sleep(spec.sliceMs / 2);
        recording = false;
        recorder.recordedMs += performance.now() - startedAt;
        recorder.serverCpuMs += cpuMilliseconds(target.pid) - cpuBefore;
      }
    }
    stopping = true;
  };

  await Promise.all([schedule(), ...Array.from({ length: spec.connections }, (_, index) => loop(index))]);
  return recorders.map((recorder) => recorder.result());
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Server-side sockets in ESTABLISHED state on `port`, from /proc/net/tcp. */
function establishedConnections(port: number): number {
  const localPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(localPort) && state === "01") count++;
    }
  }
  return count;
}

if (import.meta.main) {
  const results = await generate(JSON.parse(process.argv[2]!) as LoadSpec);
  console.log(JSON.stringify(results));
  // Pooled keep-alive sockets must not hold the process open.
  process.exit(0);
}
