import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { feedItems, feeds, importTasks, users } from "../../../src/db/schema";
import { readBilibiliSpace } from "../../../src/modules/feeds/bilibili-space";
import { pollFeed } from "../../../src/modules/feeds/poll-feed";
import { findFeed } from "../../../src/modules/feeds/read-feed";
import { mixinKey, signWbi } from "../../../src/modules/imports/platforms/bilibili/wbi";
import { spaceMidOf } from "../../../src/modules/imports/platforms/bilibili/space";
import type { ConditionalFetcher } from "../../../src/modules/imports/safe-fetch/fetch-conditional";
import { unheardChanges } from "../../support/changes";
import { notesDatabaseForThisFile } from "../../support/notes-database";
import { startPlatformServer } from "../../support/platform-server";

// A Bilibili space followed through the WBI-signed space API, against a stand-in that answers as
// Bilibili does: an unsigned or badly signed request, or one without the visitor cookie and the
// space's Referer, is refused with risk control (-352).

const IMG_KEY = "7cd084941338484aae1ad9425b84077c";
const SUB_KEY = "4932caff0ff746eab6f01bf08b70ac45";
const MID = "2267573";
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });
const video = (bvid: string, title: string, created: number) => ({ bvid, aid: 1, title, description: `${title}的简介`, created, author: "某UP主", mid: Number(MID), pic: "//i0.hdslb.com/x.jpg", length: "05:12", play: 10, comment: 1 });

let answer: "ok" | "risk" | "no-user" = "ok";
const searches: { params: URLSearchParams; referer: string | null; cookie: string | null }[] = [];
const platforms = startPlatformServer((url, request) => {
  const where = `${url.host}${url.pathname}`;
  if (where === "api.bilibili.com/x/web-interface/nav") {
    return json({ code: -101, message: "账号未登录", data: { isLogin: false, wbi_img: { img_url: `https://i0.hdslb.com/bfs/wbi/${IMG_KEY}.png`, sub_url: `https://i0.hdslb.com/bfs/wbi/${SUB_KEY}.png` } } });
  }
  if (where === "api.bilibili.com/x/space/wbi/arc/search") {
    searches.push({ params: url.searchParams, referer: request.headers.get("referer"), cookie: request.headers.get("cookie") });
    const { w_rid, wts, ...rest } = Object.fromEntries(url.searchParams);
    const signed = w_rid && wts && signWbi(rest, mixinKey(IMG_KEY + SUB_KEY), Number(wts)).w_rid === w_rid;
    const visitor = /(?:^|;\s*)buvid3=[0-9A-F-]{36}\d{5}infoc/.test(request.headers.get("cookie") ?? "");
    if (!signed || !visitor || request.headers.get("referer") !== `https://space.bilibili.com/${MID}/` || answer === "risk") return json({ code: -352, message: "风控校验失败", ttl: 1, data: { v_voucher: "voucher_x" } });
    if (answer === "no-user") return json({ code: -404, message: "啥都木有", ttl: 1 });
    return json({
      code: 0,
      message: "0",
      ttl: 1,
      data: {
        list: { tlist: {}, vlist: [video("BV1aa411c7aa", "最新的视频", 1_793_000_000), video("BV1bb411c7bb", "上一期视频", 1_792_000_000), video("BV1cc411c7cc", "更早的视频", 1_791_000_000)] },
        page: { pn: 1, ps: 30, count: 3 },
      },
    });
  }
  return undefined;
});
afterAll(() => platforms.stop());
const conditional: ConditionalFetcher = async (url, options) => ({ ...(await platforms.fetcher(url, options)), movedTo: null, etag: null, lastModified: null, retryAfter: null });

describe("a Bilibili space", () => {
  test("its address names the uploader", () => {
    expect(spaceMidOf("https://space.bilibili.com/2267573")).toBe(MID);
    expect(spaceMidOf("https://space.bilibili.com/2267573/video?tid=0")).toBe(MID);
    expect(spaceMidOf("https://m.bilibili.com/space/2267573")).toBe(MID);
    expect(spaceMidOf("https://www.bilibili.com/video/BV1aa411c7aa")).toBeUndefined();
    expect(spaceMidOf("https://space.bilibili.com.evil.example/2267573")).toBeUndefined();
  });

  test("is read through the signed space API, newest first, as Bilibili's own page asks", async () => {
    const space = await readBilibiliSpace(MID, platforms.fetcher);
    expect(space).toMatchObject({ kind: "bilibili", title: "某UP主 · bilibili", siteUrl: `https://space.bilibili.com/${MID}` });
    expect(space.entries.map((entry) => [entry.id, entry.url, entry.title])).toEqual([
      ["BV1aa411c7aa", "https://www.bilibili.com/video/BV1aa411c7aa", "最新的视频"],
      ["BV1bb411c7bb", "https://www.bilibili.com/video/BV1bb411c7bb", "上一期视频"],
      ["BV1cc411c7cc", "https://www.bilibili.com/video/BV1cc411c7cc", "更早的视频"],
    ]);
    expect(space.entries[0]!.publishedAt).toBe(new Date(1_793_000_000_000).toISOString());
    const last = searches.at(-1)!;
    expect(Object.fromEntries(last.params)).toMatchObject({ mid: MID, pn: "1", ps: "30", order: "pubdate" });
    expect(last.params.get("w_rid")).toMatch(/^[0-9a-f]{32}$/);
  });

  test("a subscription to its address is a `bilibili` feed; risk control and a missing user are said in words", async () => {
    const found = await findFeed({ fetch: conditional }, `https://space.bilibili.com/${MID}/video`);
    expect(found.url).toBe(`https://space.bilibili.com/${MID}`);
    expect(found.parsed.kind).toBe("bilibili");
    answer = "risk";
    await expect(findFeed({ fetch: conditional }, `https://space.bilibili.com/${MID}`)).rejects.toThrow("risk control");
    answer = "no-user";
    await expect(findFeed({ fetch: conditional }, `https://space.bilibili.com/${MID}`)).rejects.toThrow("does not exist");
    answer = "ok";
  });

  test("its videos become Bilibili import tasks (transcripts included), the newest `backfill` first", async () => {
    const database = await notesDatabaseForThisFile();
    const db = database.db;
    const [user] = await db.insert(users).values({ username: "biliuser", usernameKey: "biliuser", passwordHash: "x", createdAt: 1 }).returning({ id: users.id });
    const now = Date.now();
    const [feed] = await db
      .insert(feeds)
      .values({ userId: user!.id, url: `https://space.bilibili.com/${MID}`, kind: "bilibili", backfill: 2, nextFetchAt: now, createdAt: now, updatedAt: now })
      .returning();
    const queued: number[] = [];
    const run = { db, fetch: conditional, importQueue: { enqueueImport: async (task: { id: number }) => (queued.push(task.id), true), findImportJob: async () => null }, changes: unheardChanges };
    expect(await pollFeed(run, { feedId: feed!.id, userId: user!.id })).toBe("read");
    const tasks = await db.select().from(importTasks).where(eq(importTasks.feedId, feed!.id));
    expect(tasks.map((task) => [task.platform, task.url, task.document])).toEqual([
      ["bilibili", "https://www.bilibili.com/video/BV1bb411c7bb", null],
      ["bilibili", "https://www.bilibili.com/video/BV1aa411c7aa", null],
    ]);
    expect(queued).toHaveLength(2);
    const skipped = await db.select().from(feedItems).where(eq(feedItems.state, "skipped"));
    expect(skipped.map((item) => item.guid)).toEqual(["BV1cc411c7cc"]);
    expect((await db.select().from(feeds).where(eq(feeds.id, feed!.id)))[0]).toMatchObject({ title: "某UP主 · bilibili", lastError: null });
  });
});
