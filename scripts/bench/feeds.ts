// `npm run bench:feeds`: 1,000 feeds due at once against a local feed host (ETag on every feed, 20
// items each). The service runs in its own process (ROLE=all, FEEDS_CONCURRENCY default), so its
// CPU and RSS are read from /proc. Two rounds, each started by the minute's due-feeds sweep after
// every feed is made due at once: one where every feed changed (a new ETag: read, parsed, items
// compared, none new) and one where none did (every fetch a 304). Printed: the time to fetch them
// all, the service's CPU per feed — its idle CPU over the same time, measured in the same run just
// before, taken off — and RSS growth over the service's state before the rounds.
// Targets: a 304 round costs ≤ 5 ms of CPU a feed; RSS growth ≤ 64 MiB.
import fs from "node:fs";
import path from "node:path";
import { createClient } from "@libsql/client";
import { benchWorkDir, cpuMilliseconds, loadAverage, residentBytes, startServerProcess, watchResidentMemory, type ServerProcess } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const FEEDS = Number(process.env.BENCH_FEEDS ?? 1000);
const ITEMS = 20;
const PER_USER = 500;
const IDLE_MS = 15_000;
const ROUND_TIMEOUT_MS = 10 * 60_000;
const TARGET = { cpuPer304Ms: 5, rssGrowthMiB: 64 };

const workDir = benchWorkDir("rhizome-bench-feeds-");
let service: ServerProcess | undefined;
let host: ReturnType<typeof Bun.serve> | undefined;
try {
  await main();
} finally {
  host?.stop(true);
  await service?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}

async function main() {
  // The feed host: feed n answers 304 to its current ETag; `version` bumps every ETag at once.
  let version = 1;
  const served = { full: 0, notModified: 0 };
  const feedBody = (n: number) =>
    `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Feed ${n}</title><link>http://127.0.0.1/site/${n}</link><description>bench</description>${Array.from(
      { length: ITEMS },
      (_, item) =>
        `<item><title>Post ${item} of feed ${n}</title><link>http://127.0.0.1/site/${n}/${item}</link><guid isPermaLink="false">feed-${n}-item-${item}</guid><pubDate>${new Date(Date.UTC(2026, 10, 1, item)).toUTCString()}</pubDate><description><![CDATA[${"A paragraph of the post's summary. ".repeat(12)}]]></description></item>`,
    ).join("")}</channel></rss>`;
  const bodies = Array.from({ length: FEEDS }, (_, n) => feedBody(n));
  host = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const n = Number(new URL(request.url).pathname.match(/^\/feeds\/(\d+)\.xml$/)?.[1] ?? NaN);
      if (!(n >= 0 && n < FEEDS)) return new Response("Not Found", { status: 404 });
      const etag = `"${n}-${version}"`;
      if (request.headers.get("if-none-match") === etag) {
        served.notModified++;
        return new Response(null, { status: 304, headers: { etag } });
      }
      served.full++;
      return new Response(bodies[n], { headers: { "content-type": "application/rss+xml; charset=utf-8", etag } });
    },
  });
  const feedUrl = (n: number) => `http://127.0.0.1:${host!.port}/feeds/${n}.xml`;

  const dataDir = path.join(workDir, "service");
  fs.mkdirSync(dataDir);
  service = await startServerProcess("feeds", "service-server.ts", { DATA_DIR: dataDir, ROLE: "all", IMPORT_ALLOW_PRIVATE_NETWORKS: "true", BACKUP_INTERVAL_HOURS: "0" });
  const sessions: Session[] = [];
  for (let user = 0; user * PER_USER < FEEDS; user++) sessions.push(await registerAndLogin(service.url, `bench-feeds-${user}`));

  console.log(`subscribing to ${FEEDS} feeds (${ITEMS} items each, backfill 0: items are recorded, none imported)…`);
  const subscribeStarted = performance.now();
  for (let start = 0; start < FEEDS; start += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, FEEDS - start) }, async (_, offset) => {
        const n = start + offset;
        const session = sessions[Math.floor(n / PER_USER)]!;
        const response = await fetch(`${service!.url}/api/feeds`, {
          method: "POST",
          headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
          body: JSON.stringify({ url: feedUrl(n), backfill: 0 }),
        });
        if (response.status !== 201) throw new Error(`subscribing to feed ${n}: ${response.status} ${await response.text()}`);
      }),
    );
  }
  const db = createClient({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  await db.execute("pragma busy_timeout = 10000");
  const fetchedSince = async (since: number) => Number((await db.execute({ sql: "select count(*) from feeds where last_fetched_at >= ?", args: [since] })).rows[0]![0]);
  await waitFor(async () => (await fetchedSince(0)) === FEEDS, "every first fetch");
  console.log(`subscribed and first-fetched in ${((performance.now() - subscribeStarted) / 1000).toFixed(1)} s`);

  const rssBefore = residentBytes(service.pid);
  const idle = await idleCpuRate(service.pid);
  console.log(`service idle: ${(idle * 1000).toFixed(2)} ms of CPU a second; RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB (load average ${loadAverage().toFixed(2)})`);
  const memory = watchResidentMemory(service.pid, 50);

  version++; // every feed changed: a full read of each
  const changed = await round(db, fetchedSince, idle, "changed (200, parsed, nothing new)");
  const unchanged = await round(db, fetchedSince, idle, "unchanged (304)");
  const peak = memory.stop();
  db.close();
  const growthMiB = (peak - rssBefore) / 2 ** 20;

  console.log("");
  console.log(`feed host answered ${served.full} full bodies and ${served.notModified} 304s`);
  for (const result of [changed, unchanged]) {
    console.log(`${result.name}: ${FEEDS} feeds fetched in ${(result.ms / 1000).toFixed(1)} s (${(FEEDS / (result.ms / 1000)).toFixed(0)} feeds/s); service CPU ${result.cpuMs} ms, idle share ${result.idleMs.toFixed(0)} ms → ${result.perFeed.toFixed(2)} ms a feed`);
  }
  console.log(`RSS: ${(rssBefore / 2 ** 20).toFixed(0)} MiB before the rounds, peak ${(peak / 2 ** 20).toFixed(0)} MiB → growth ${growthMiB.toFixed(1)} MiB`);
  console.log(`${unchanged.perFeed <= TARGET.cpuPer304Ms ? "PASS" : "FAIL"} CPU per unchanged (304) feed ≤ ${TARGET.cpuPer304Ms} ms (${unchanged.perFeed.toFixed(2)} ms)`);
  console.log(`${growthMiB <= TARGET.rssGrowthMiB ? "PASS" : "FAIL"} RSS growth ≤ ${TARGET.rssGrowthMiB} MiB (${growthMiB.toFixed(1)} MiB)`);
  if (unchanged.perFeed > TARGET.cpuPer304Ms || growthMiB > TARGET.rssGrowthMiB) process.exitCode = 1;

  /** Makes every feed due at once (as a person back from a long weekend would find them), waits for the minute's sweep to queue them, and for each to be fetched. */
  async function round(db: ReturnType<typeof createClient>, fetched: (since: number) => Promise<number>, idleRate: number, name: string) {
    const due = Date.now();
    await db.execute({ sql: "update feeds set next_fetch_at = ?", args: [due] });
    const before = served.full + served.notModified;
    // The sweep runs on the minute: the round starts when the first of its fetches arrives.
    await waitFor(async () => served.full + served.notModified > before, "the minute's sweep", 70_000, 5);
    const started = performance.now();
    const cpuStart = cpuMilliseconds(service!.pid);
    await waitFor(async () => (await fetched(due)) === FEEDS, `${name}: every feed fetched`, ROUND_TIMEOUT_MS, 20);
    const ms = performance.now() - started;
    const cpuMs = cpuMilliseconds(service!.pid) - cpuStart;
    const idleMs = idleRate * ms;
    return { name, ms, cpuMs, idleMs, perFeed: Math.max(0, cpuMs - idleMs) / FEEDS };
  }
}

/** The service's CPU a millisecond while nothing is asked of it (its timers, the queue's polling), over IDLE_MS. */
async function idleCpuRate(pid: number): Promise<number> {
  const cpu = cpuMilliseconds(pid);
  const started = performance.now();
  await Bun.sleep(IDLE_MS);
  return (cpuMilliseconds(pid) - cpu) / (performance.now() - started);
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = ROUND_TIMEOUT_MS, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs / 1000} s`);
    await Bun.sleep(intervalMs);
  }
}
