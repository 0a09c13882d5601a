// `bun run bench:webhooks`: 10,000 note writes with one webhook on a loopback receiver. Three servers
// of this code in one run take the writes in alternating blocks, so all see the same machine: one
// with the webhook delivering as the writes go, one with none (the baseline), and one with the
// webhook but no worker (ROLE=api: events are written and queued, nothing is delivered) — the
// write path's own cost apart from the delivery work competing for the same CPUs. Printed: whether
// every event was delivered exactly once (and signed), the delivery lag p50/p99 (write answered →
// receiver has it), and the note writes' p50/p99 on each against the baseline (target: ≤ 1.1× p50).
import fs from "node:fs";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { percentile } from "./load";
import { benchWorkDir, startServerProcess, type ServerProcess } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const WRITES = Number(process.env.BENCH_WRITES ?? 10_000);
const BLOCK = 250;
const DELIVERY_TIMEOUT_MS = Number(process.env.BENCH_DELIVERY_TIMEOUT_MS ?? 600_000);
const TARGET_RATIO = 1.1;

const workDir = benchWorkDir("rhizome-bench-webhooks-");
const running: ServerProcess[] = [];
let receiver: ReturnType<typeof Bun.serve> | undefined;
try {
  await main();
} finally {
  receiver?.stop(true);
  await Promise.all(running.splice(0).map((server) => server.stop()));
  fs.rmSync(workDir, { recursive: true, force: true });
}

interface Side {
  name: string;
  session: Session;
  latencies: number[];
  written: number;
}

async function main() {
  // The receiver: records when each event arrives and checks its signature.
  const arrivals = new Map<string, number[]>(); // webhook-id → arrival times
  const noteOfEvent = new Map<string, number>();
  let badSignatures = 0;
  let secret = "";
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const at = performance.now();
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      try {
        new Webhook(secret).verify(body, headers);
      } catch {
        badSignatures++;
      }
      const id = headers["webhook-id"] ?? "";
      arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
      noteOfEvent.set(id, (JSON.parse(body) as { data: { id: number } }).data.id);
      return new Response(null, { status: 204 });
    },
  });

  const sides: Side[] = [];
  for (const [name, role] of [["webhook", "all"], ["baseline", "all"], ["webhook, no worker", "api"]] as const) {
    const dir = path.join(workDir, name.replace(/\W+/g, "-"));
    fs.mkdirSync(dir);
    const server = await startServerProcess(name, "service-server.ts", { DATA_DIR: dir, ROLE: role, IMPORT_ALLOW_PRIVATE_NETWORKS: "true", BACKUP_INTERVAL_HOURS: "0" });
    running.push(server);
    sides.push({ name, session: await registerAndLogin(server.url, "bench"), latencies: [], written: 0 });
  }
  const [hooked, baseline, queuedOnly] = sides as [Side, Side, Side];
  const created = await call(hooked.session, "POST", "/api/webhooks", { url: `http://127.0.0.1:${receiver.port}/in`, events: ["note.created"] });
  secret = created.secret;
  // Never delivered (no worker), so the receiver never hears of it.
  await call(queuedOnly.session, "POST", "/api/webhooks", { url: "http://127.0.0.1:9/never", events: ["note.created"] });

  const acknowledged = new Map<number, number>(); // note id → when its write was answered
  console.log(`${WRITES} note writes on each server, in alternating blocks of ${BLOCK}…`);
  const started = performance.now();
  while (sides.some((side) => side.written < WRITES)) {
    for (const side of sides) {
      for (let i = 0; i < BLOCK && side.written < WRITES; i++, side.written++) {
        const begin = performance.now();
        const note = await call(side.session, "POST", "/api/notes", { title: `Bench ${side.written}`, content: `Note ${side.written} of the webhook benchmark, with a few words.`, tags: ["bench"] });
        const end = performance.now();
        side.latencies.push(end - begin);
        if (side === hooked) acknowledged.set(note.id, end);
      }
    }
  }
  const writeSeconds = (performance.now() - started) / 1000;
  console.log(`writes done in ${writeSeconds.toFixed(1)} s; waiting for every delivery…`);
  const deadline = performance.now() + DELIVERY_TIMEOUT_MS;
  while (new Set(noteOfEvent.values()).size < WRITES && performance.now() < deadline) await Bun.sleep(100);
  await Bun.sleep(2_000); // a duplicate would arrive about now

  const deliveredNotes = new Set(noteOfEvent.values());
  const attempts = [...arrivals.values()].reduce((sum, times) => sum + times.length, 0);
  const lags = [...arrivals.entries()]
    .map(([id, times]) => times[0]! - acknowledged.get(noteOfEvent.get(id)!)!)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  const withHook = stats(hooked.latencies);
  const without = stats(baseline.latencies);
  const writePath = stats(queuedOnly.latencies);
  const ratio = withHook.p50 / without.p50;
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  console.log("");
  console.log(`events: ${WRITES} note writes → ${deliveredNotes.size} notes delivered, ${arrivals.size} event ids, ${attempts} requests (${attempts - arrivals.size} duplicates), ${badSignatures} bad signatures`);
  console.log(`delivery lag (write answered → receiver has it): p50 ${ms(percentile(lags, 0.5))}, p99 ${ms(percentile(lags, 0.99))}, max ${ms(lags.at(-1) ?? NaN)}`);
  console.log(`note write with the webhook: p50 ${ms(withHook.p50)}, p99 ${ms(withHook.p99)}`);
  console.log(`note write without (baseline): p50 ${ms(without.p50)}, p99 ${ms(without.p99)}`);
  console.log(`note write with the webhook, nothing delivered (write path only): p50 ${ms(writePath.p50)}, p99 ${ms(writePath.p99)}`);
  console.log(`ratio p50, delivering: ${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×) ${ratio <= TARGET_RATIO ? "✓" : "✗"}; write path only: ${(writePath.p50 / without.p50).toFixed(2)}×`);
  console.log(`every event once: ${deliveredNotes.size === WRITES && attempts === WRITES && badSignatures === 0 ? "✓" : "✗"}`);
}

async function call(session: Session, method: string, route: string, body?: unknown) {
  const response = await fetch(`${session.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : await response.json();
}
