import { afterAll, expect, test } from "bun:test";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

// FEEDS_CONCURRENCY: however many feeds are due and however many jobs a worker runs at once, at
// most that many feeds are being fetched at any moment.

let slow = false;
let inFlight = 0;
let most = 0;
const host = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      if (slow) await Bun.sleep(400);
      const n = new URL(request.url).pathname.replace(/\D/g, "");
      return new Response(`<rss version="2.0"><channel><title>Feed ${n}</title><link>http://127.0.0.1/</link><item><title>x</title><guid isPermaLink="false">${n}-${slow}</guid></item></channel></rss>`, { headers: { "content-type": "application/rss+xml" } });
    } finally {
      inFlight--;
    }
  },
});
afterAll(() => host.stop(true));
const { api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true", FEEDS_CONCURRENCY: "2", WORKER_CONCURRENCY: "6" });
const { api: reader } = await api.newUser("lanes");

test("six feeds refreshed at once are fetched two at a time", async () => {
  const ids: number[] = [];
  for (let n = 0; n < 6; n++) ids.push((await reader.post("/api/feeds", { url: `http://127.0.0.1:${host.port}/feed${n}.xml`, backfill: 0 })).body.id);
  await until(async () => (await reader.get("/api/feeds")).body.items.every((feed: any) => feed.last_fetched_at !== null), { what: "the first fetches", timeoutMs: 20_000 });
  const before = new Map<number, string>();
  for (const feed of (await reader.get("/api/feeds")).body.items) before.set(feed.id, feed.last_fetched_at);
  slow = true;
  most = 0;
  for (const id of ids) expect((await reader.post(`/api/feeds/${id}/refresh`)).status).toBe(202);
  await until(async () => (await reader.get("/api/feeds")).body.items.every((feed: any) => feed.last_fetched_at !== before.get(feed.id)), { what: "every refresh", timeoutMs: 20_000 });
  expect(most).toBe(2);
});
