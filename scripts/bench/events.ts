// `bun run bench:events`: what open event streams cost. One API process run as `npm run start:api`
// runs it (ROLE=api and its runtime memory settings; embedded Postgres, libSQL file) on loopback;
// one user; no worker (the measured change is a task's creation, which the API itself announces). Measures the service's RSS with no client, with
// 1,000 idle keep-alive HTTP connections (the baseline: what any open connection costs), and with
// 1,000 open GET /api/events streams, first cold (the first streams since start) then warm; then
// how long a change (a new import task) takes to reach all 1,000 streams. Clients are raw sockets,
// so no client-side connection limit applies.
import net from "node:net";
import path from "node:path";
import { percentile } from "./load";
import { benchScratch, residentBytes, startScriptEnvironment, type ServerProcess } from "./server-process";
import { registerAndLogin } from "./tasks-client";

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
/** Longer than the coalescing slot (250 ms), so each round's first event is sent at once. */
const ROUND_GAP_MS = 1_000;
const SETTLE_MS = 2_000;
const OPEN_TIMEOUT_MS = 60_000;

const scratch = benchScratch("rhizome-bench-events-");
const { workDir } = scratch;
let service: ServerProcess | undefined;
const sockets: net.Socket[] = [];

const cleanUp = async () => {
  for (const socket of sockets) socket.destroy();
  await scratch.cleanUp();
};

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** One raw HTTP/1.1 connection that sends `request` and collects what comes back. */
function connect(port: number, request: string, onData: (text: string) => void): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.write(request);
      resolve(socket);
    });
    socket.setEncoding("utf8");
    socket.on("data", onData);
    socket.once("error", reject);
    sockets.push(socket);
  });
}

/** Resolves when `count` of the things counted by `seen` have happened. */
function countdown(count: number) {
  let left = count;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  if (count === 0) done();
  return {
    finished,
    tick() {
      if (--left === 0) done();
    },
  };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

async function settledRss(pid: number): Promise<number> {
  await Bun.sleep(SETTLE_MS);
  return residentBytes(pid);
}

async function main() {
  const dataDir = path.join(workDir, "service");
  const apiNode = startScriptEnvironment("start:api");
  service = await scratch.start("service", "service-server.ts", { ...apiNode, DATA_DIR: dataDir, DATABASE_URL: "", LIBSQL_URL: "" });
  const { pid, port } = service;
  const session = await registerAndLogin(service.url, "bench_events");
  const host = `Host: 127.0.0.1:${port}\r\n`;
  progress(`service pid ${pid} on ${service.url}`);

  // Warm the paths once: a stream, a task.
  {
    const warm = countdown(1);
    const socket = await connect(port, `GET /api/events HTTP/1.1\r\n${host}Authorization: Bearer ${session.token}\r\n\r\n`, (text) => {
      if (text.includes("event: graph")) warm.tick();
    });
    await within(warm.finished, OPEN_TIMEOUT_MS, "the warm-up stream");
    await createTask(service.url, session.token);
    socket.destroy();
  }

  /** Per task id: how many streams have its first event, and when the last of them got it. */
  const arrivals = new Map<number, { streams: number; lastAt: number }>();

  /** `count` keep-alive connections that made one request each (GET /healthz) and now sit idle. */
  async function openIdleConnections(count: number): Promise<net.Socket[]> {
    const answered = countdown(count);
    const opened: net.Socket[] = [];
    for (let i = 0; i < count; i++) {
      let seen = false;
      opened.push(
        await connect(port, `GET /healthz HTTP/1.1\r\n${host}Connection: keep-alive\r\n\r\n`, (text) => {
          if (!seen && text.includes('"status"')) {
            seen = true;
            answered.tick();
          }
        }),
      );
    }
    await within(answered.finished, OPEN_TIMEOUT_MS, `${count} keep-alive requests`);
    return opened;
  }

  /** `count` streams of the user, each having received its first `graph` event; task arrivals are recorded. */
  async function openStreams(count: number): Promise<{ sockets: net.Socket[]; seconds: number }> {
    const opened = countdown(count);
    const started = performance.now();
    const streams: net.Socket[] = [];
    for (let i = 0; i < count; i++) {
      let isOpen = false;
      const seenTasks = new Set<number>();
      streams.push(
        await connect(port, `GET /api/events HTTP/1.1\r\n${host}Authorization: Bearer ${session.token}\r\n\r\n`, (text) => {
          const at = performance.now();
          if (!isOpen && text.includes("event: graph")) {
            isOpen = true;
            opened.tick();
          }
          for (const match of text.matchAll(/event: task\ndata: \{"id":(\d+),/g)) {
            const id = Number(match[1]);
            if (seenTasks.has(id)) continue;
            seenTasks.add(id);
            const arrival = arrivals.get(id) ?? { streams: 0, lastAt: 0 };
            arrival.streams++;
            arrival.lastAt = at;
            arrivals.set(id, arrival);
          }
        }),
      );
    }
    await within(opened.finished, OPEN_TIMEOUT_MS, `opening ${count} streams`);
    return { sockets: streams, seconds: (performance.now() - started) / 1000 };
  }
  const close = (sockets: net.Socket[]) => sockets.forEach((socket) => socket.destroy());

  // Cold: the first 1,000 streams since start also pay for heap growth and compiled code, kept after.
  const coldIdleRss = await settledRss(pid);
  const cold = await openStreams(STREAMS);
  const coldStreamsRss = await settledRss(pid);
  progress(`cold: no clients ${mib(coldIdleRss)}, ${STREAMS} streams ${mib(coldStreamsRss)}`);
  close(cold.sockets);
  close(await openIdleConnections(STREAMS));

  // Warm: the same again, as a service that has served streams before runs.
  const idleRss = await settledRss(pid);
  const baseline = await openIdleConnections(STREAMS);
  const keepAliveRss = await settledRss(pid); // within Elysia's 30 s idle timeout
  close(baseline);
  const afterBaselineRss = await settledRss(pid);
  const { sockets: streams, seconds: openSeconds } = await openStreams(STREAMS);
  const streamsRss = await settledRss(pid);
  progress(`warm: no clients ${mib(idleRss)}, ${STREAMS} keep-alive connections ${mib(keepAliveRss)}, ${STREAMS} streams ${mib(streamsRss)}`);

  // Fan-out: a new task's first `task` event, from POST sent until the last stream has it.
  const latencies: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const sent = performance.now();
    const id = await createTask(service.url, session.token);
    await within(
      (async () => {
        while ((arrivals.get(id)?.streams ?? 0) < STREAMS) await Bun.sleep(5);
      })(),
      30_000,
      `round ${round + 1}`,
    );
    latencies.push(arrivals.get(id)!.lastAt - sent);
    await Bun.sleep(ROUND_GAP_MS);
  }
  latencies.sort((a, b) => a - b);

  close(streams);
  const perStream = (streamsRss - afterBaselineRss) / STREAMS;
  const perConnection = (keepAliveRss - idleRss) / STREAMS;
  const settings = Object.entries(apiNode).map(([name, value]) => `${name}=${value}`).join(" ");
  console.log(`\nbench:events — ${STREAMS} streams of one user, ${ROUNDS} changes (${new Date().toISOString().slice(0, 10)}; ${settings})`);
  console.log(`cold (the first ${STREAMS} streams since start): RSS ${mib(coldIdleRss)} → ${mib(coldStreamsRss)}, ${kib((coldStreamsRss - coldIdleRss) / STREAMS)} a stream`);
  console.log("warm (the same service, after streams and connections have come and gone once):");
  console.log(`service RSS, no clients                         ${mib(idleRss)}`);
  console.log(`service RSS, ${STREAMS} idle keep-alive connections  ${mib(keepAliveRss)}  (baseline: ${kib(perConnection)} a connection)`);
  console.log(`service RSS, baseline connections closed         ${mib(afterBaselineRss)}`);
  console.log(`service RSS, ${STREAMS} open event streams           ${mib(streamsRss)}  (${kib(perStream)} a stream over the line above)`);
  console.log(`opening ${STREAMS} streams (first graph event on each) ${openSeconds.toFixed(2)} s`);
  console.log(
    `change → all ${STREAMS} streams (POST /api/tasks sent → last stream has the task event): p50 ${percentile(latencies, 0.5).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
  );
}

async function createTask(baseUrl: string, token: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/tasks`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ platform: "web", content: `# Bench\n\nA change at ${Date.now()}.` }),
  });
  if (response.status !== 201) throw new Error(`POST /api/tasks: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}

function progress(message: string) {
  console.error(`[bench:events] ${message}`);
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
