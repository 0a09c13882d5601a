import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { ImportError, PASTE_INSTEAD } from "../../../../src/modules/imports/import-error";
import { bilibiliImporter, createBilibiliImporter } from "../../../../src/modules/imports/platforms/bilibili";
import { timestamp } from "../../../../src/modules/imports/platforms/bilibili/video-document";
import type { Fetcher } from "../../../../src/modules/imports/platforms/types";
import { importFailureOf, importRejectionOf } from "../../../support/import-failure";
import { readFixture } from "../../../support/platform-fixtures";
import { startPlatformServer } from "../../../support/platform-server";

const fixture = (name: string) => readFixture("bilibili", name);

const BVID = "BV1Xb421E7Lm";
const AID = 1205938427;
const SESSDATA = "5f3e2a1b%2C1733712000%2C9c8d7*61CjBvX2yK4mNqR8sT1uW3xZ5aB7cD9eF0gH2iJ4kL6mN8oP0qR2sT4uV6wX8yZ0aB2cQ";
const SUBTITLE_PATH = "/bfs/ai_subtitle/prod/12059384271561234567a3c9d8e7f6b5a4c3d2e1f0a9b8c7d";

const json = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "application/json; charset=utf-8" } });
const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
const redirect = (location: string) => new Response(null, { status: 302, headers: { location } });

/** Switches for the parts of Bilibili a test wants broken. */
const outages = { tags: false, subtitleFile: false, signedPlayer: false, otherVideosSubtitles: false };
afterEach(() => {
  outages.tags = false;
  outages.subtitleFile = false;
  outages.signedPlayer = false;
  outages.otherVideosSubtitles = false;
});

const VIEW_ANSWERS: Record<string, () => Response> = {
  [BVID]: () => json(fixture("view.json")),
  [String(AID)]: () => json(fixture("view.json")),
  BV1Fx411c7Dq: () => json(fixture("view-deleted.json")),
  BV1Hs411c7Nv: () => json(fixture("view-not-visible.json")),
  BV1Uv4y1R7Rv: () => json('{"code":62004,"message":"稿件审核中","ttl":1}'),
  BV1Ee4y1A7Ab: () => json('{"code":62012,"message":"仅UP主自己可见","ttl":1}'),
  BV1Lq4y1X7Rd: () => json(fixture("view-login-required.json")),
  BV1Rm4y1L7Kc: () => json(fixture("view-rate-limited.json")),
  BV1Nw4y1Q7Zp: () => json('{"code":-799,"message":"请求过于频繁，请稍后再试","ttl":1}'),
  BV1Tw4y1H7Pe: () => html("<html><body><h1>412 Precondition Failed</h1></body></html>", 412),
  BV1Yy4y1B7Wq: () => html("<html><body>502 Bad Gateway</body></html>", 502),
};

/** The player's answer; with `otherVideosSubtitles`, the tracks are files named for another aid/cid (a known API fault). */
function playerAnswer(loggedIn: boolean): string {
  const answer = fixture(loggedIn ? "player-with-subtitles.json" : "player-no-subtitles.json");
  return outages.otherVideosSubtitles ? answer.replaceAll("/prod/12059384271561234567", "/prod/99887766551122334455") : answer;
}

/** Bilibili's API, CDN and short links as they answer a logged-out or logged-in client. */
function bilibili(url: URL, request: Request): Response | undefined {
  const loggedIn = (request.headers.get("cookie") ?? "").includes(`SESSDATA=${SESSDATA}`);
  switch (`${url.host}${url.pathname}`) {
    case "api.bilibili.com/x/web-interface/view": {
      const id = url.searchParams.get("bvid") ?? url.searchParams.get("aid") ?? "";
      return (VIEW_ANSWERS[id] ?? (() => json(fixture("view-deleted.json"))))();
    }
    case "api.bilibili.com/x/web-interface/view/detail/tag":
      return outages.tags ? json('{"code":-500,"message":"服务器错误","ttl":1}', 500) : json(fixture("tags.json"));
    case "api.bilibili.com/x/player/wbi/v2":
      // The signed-path endpoint asking for a signature: the older one still answers.
      if (outages.signedPlayer) return json('{"code":-352,"message":"-352","ttl":1}');
      return json(playerAnswer(loggedIn));
    case "api.bilibili.com/x/player/v2":
      return outages.signedPlayer ? json(playerAnswer(loggedIn)) : json(fixture("player-no-subtitles.json"));
    case `aisubtitle.hdslb.com${SUBTITLE_PATH}`:
      return outages.subtitleFile ? html("", 404) : json(fixture("subtitle-zh.json"));
    case "b23.tv/aB3xY9z":
      return redirect(`https://www.bilibili.com/video/${BVID}/?share_source=copy_web&vd_source=8a3c5e7f9b1d2f4a6c8e0a2b4d6f8a0c`);
    case "b23.tv/Zz9Yy8x":
      return redirect("https://space.bilibili.com/398765432");
    case `www.bilibili.com/video/${BVID}/`:
      return html(fixture("video-page.html"));
    case "space.bilibili.com/398765432":
      return html("<html><head><title>航空小课堂_老周的个人空间</title></head></html>");
  }
  return undefined;
}



const server = startPlatformServer(bilibili);
afterAll(() => server.stop());

const apiBase = `${server.origin}/api.bilibili.com`;
const loggedOut = createBilibiliImporter({ apiBase });
const loggedIn = createBilibiliImporter({ apiBase, sessdata: SESSDATA });

/** The ImportError an import of `url` fails with. */
const importFailure = (url: string, importer = loggedOut) => importRejectionOf(importer.fetchDocument(url, server.fetcher));
/** The ImportError pasting `content` fails with. */
const pastedFailure = (content: string) => importFailureOf(() => bilibiliImporter.parsePasted(content));

describe("fetching Bilibili videos through the API", () => {
  test("a logged-out import has the video's details and says why there are no subtitles", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      loggedOut.fetchDocument(`https://www.bilibili.com/video/${BVID}/?spm_id_from=333.1007.tianma.1-1-1.click`, server.fetcher),
    );
    expect(document.title).toBe("【硬核科普】为什么飞机的窗户都是圆角的？");
    expect(document.author).toBe("航空小课堂_老周");
    expect(document.publishedAt).toBe("2024-06-10T06:13:20.000Z");
    expect(document.tags).toEqual(["航空", "科普", "飞机", "金属疲劳", "知识分享官", "科学科普"]);
    expect(document.sourceUrl).toBe(`https://www.bilibili.com/video/${BVID}`);
    expect(document.markdown).toStartWith("飞机窗户为什么一定是圆角的？这背后是上世纪50年代“彗星”客机用生命换来的教训。\n");
    expect(document.markdown).toContain("- Uploader: [航空小课堂_老周](https://space.bilibili.com/398765432)");
    expect(document.markdown).toContain(`- Video: https://www.bilibili.com/video/${BVID}`);
    expect(document.markdown).toContain("![](https://i2.hdslb.com/bfs/archive/7d4c1f8e2a9b3c5d6e0f1a2b3c4d5e6f7a8b9c0d.jpg)");
    // Without subtitles, the sound is what speech-to-text will hear; without speech-to-text, the note says why there are none.
    expect(document.markdown).toEndWith(`- Video: https://www.bilibili.com/video/${BVID}`);
    expect(document.markdown).not.toContain("## Transcript");
    expect(document.media).toEqual({
      key: `bilibili:${BVID}:1`,
      source: { bilibili: { bvid: BVID, cid: 1561234567 } },
      videoUrl: `https://www.bilibili.com/video/${BVID}`,
      part: 1,
      withoutTranscript: "_No subtitles: Bilibili lists them only for logged-in requests._",
    });

    // The view comes first; tags and player are asked in parallel.
    expect(new URL(requests[0]!.url).pathname).toBe("/x/web-interface/view");
    // Both player endpoints are asked before the video is taken to have no subtitles.
    expect(requests.map((seen) => new URL(seen.url).pathname).sort()).toEqual([
      "/x/player/v2",
      "/x/player/wbi/v2",
      "/x/web-interface/view",
      "/x/web-interface/view/detail/tag",
    ]);
    expect(new URL(requests[0]!.url).searchParams.get("bvid")).toBe(BVID);
    const player = requests.find((seen) => new URL(seen.url).pathname === "/x/player/wbi/v2");
    expect(new URL(player!.url).searchParams.get("cid")).toBe("1561234567");
    expect(requests.every((seen) => seen.headers.cookie === undefined)).toBe(true);
    expect(requests[0]?.headers.referer).toBe("https://www.bilibili.com/");
  });

  test("with SESSDATA the Chinese subtitles are fetched with the cookie and rendered with timestamps", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      loggedIn.fetchDocument(`https://www.bilibili.com/video/${BVID}`, server.fetcher),
    );
    // Subtitles are the transcript: the same section speech-to-text writes, each paragraph's time a link to that second.
    expect(document.markdown).toContain("## Transcript\n\nsubtitles (ai-zh)\n\n[00:00](https://www.bilibili.com/video/BV1Xb421E7Lm?p=1&t=0) 大家好，欢迎来到航空小课堂，我是老周 今天我们聊一个");
    expect(document.markdown).toContain("\n\n[01:02](https://www.bilibili.com/video/BV1Xb421E7Lm?p=1&t=62) 方形窗户的四个角会产生严重的应力集中");
    expect(document.markdown).not.toContain("No subtitles");
    expect(document.media).toBeUndefined();

    expect(requests).toHaveLength(4);
    const byPath = (pathname: string) => requests.find((seen) => new URL(seen.url).pathname === pathname);
    expect(byPath("/x/player/wbi/v2")?.headers.cookie).toBe(`SESSDATA=${SESSDATA}`);
    const subtitle = byPath(SUBTITLE_PATH);
    expect(subtitle?.url).toStartWith(`https://aisubtitle.hdslb.com${SUBTITLE_PATH}?auth_key=`);
    expect(subtitle?.headers.cookie).toBe(`SESSDATA=${SESSDATA}`);
    expect(byPath("/x/web-interface/view")?.headers.cookie).toBeUndefined();
  });

  test("the default importer talks to the real API host", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      bilibiliImporter.fetchDocument(`https://www.bilibili.com/video/${BVID}`, server.fetcher),
    );
    expect(document.title).toBe("【硬核科普】为什么飞机的窗户都是圆角的？");
    expect(requests[0]?.url).toBe(`https://api.bilibili.com/x/web-interface/view?bvid=${BVID}`);
  });

  test("an av link asks the API by aid", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      loggedOut.fetchDocument(`https://www.bilibili.com/video/av${AID}`, server.fetcher),
    );
    expect(document.title).toBe("【硬核科普】为什么飞机的窗户都是圆角的？");
    expect(new URL(requests[0]!.url).searchParams.get("aid")).toBe(String(AID));
  });

  test("a mobile link is read like the desktop one", async () => {
    const document = await loggedOut.fetchDocument(`https://m.bilibili.com/video/${BVID}?share_source=copy_link`, server.fetcher);
    expect(document.author).toBe("航空小课堂_老周");
  });

  test("a b23.tv short link is followed to the video", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      loggedOut.fetchDocument("https://b23.tv/aB3xY9z", server.fetcher),
    );
    expect(document.title).toBe("【硬核科普】为什么飞机的窗户都是圆角的？");
    expect(requests.map((seen) => new URL(seen.url).host)).toEqual([
      "b23.tv",
      "www.bilibili.com",
      "api.bilibili.com",
      "api.bilibili.com",
      "api.bilibili.com",
      "api.bilibili.com",
    ]);
  });

  test("a short link to something other than a video is refused", async () => {
    const error = await importFailure("https://b23.tv/Zz9Yy8x");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("does not lead to a Bilibili video");
  });

  test("a failing tag request leaves only the category as tag", async () => {
    outages.tags = true;
    const document = await loggedOut.fetchDocument(`https://www.bilibili.com/video/${BVID}`, server.fetcher);
    expect(document.tags).toEqual(["科学科普"]);
  });

  test("when the signed player endpoint refuses, the older one's subtitles are used", async () => {
    outages.signedPlayer = true;
    const document = await loggedIn.fetchDocument(`https://www.bilibili.com/video/${BVID}`, server.fetcher);
    expect(document.markdown).toContain("## Transcript\n\nsubtitles (ai-zh)");
    expect(document.media).toBeUndefined();
  });

  test("subtitles whose files are named for another video are refused: the sound is transcribed instead", async () => {
    outages.otherVideosSubtitles = true;
    const { result: document, requests } = await server.requestsOf(() => loggedIn.fetchDocument(`https://www.bilibili.com/video/${BVID}`, server.fetcher));
    expect(document.markdown).not.toContain("## Transcript");
    expect(document.media?.withoutTranscript).toBe("_This video has no subtitles._");
    expect(requests.some((seen) => seen.url.includes("aisubtitle.hdslb.com"))).toBe(false);
  });

  test("a failing subtitle file leaves a one-line note instead of the section", async () => {
    outages.subtitleFile = true;
    const document = await loggedIn.fetchDocument(`https://www.bilibili.com/video/${BVID}`, server.fetcher);
    expect(document.markdown).not.toContain("## Transcript");
    expect(document.media?.withoutTranscript).toBe("_The subtitles could not be loaded._");
  });

  test.each([
    ["BV1Fx411c7Dq", "does not exist"],
    ["BV1Hs411c7Nv", "not visible"],
    ["BV1Uv4y1R7Rv", "under review"],
    ["BV1Ee4y1A7Ab", "uploader only"],
  ])("API refusal for %s is permanent (%s)", async (bvid, wording) => {
    const error = await importFailure(`https://www.bilibili.com/video/${bvid}`);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain(wording);
  });

  test("-403 means a login is needed: permanent, paste instead", async () => {
    const error = await importFailure("https://www.bilibili.com/video/BV1Lq4y1X7Rd");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("logged-in");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test.each([
    ["-412 risk control", "BV1Rm4y1L7Kc"],
    ["-799 too many requests", "BV1Nw4y1Q7Zp"],
    ["HTTP 412", "BV1Tw4y1H7Pe"],
    ["HTTP 502", "BV1Yy4y1B7Wq"],
  ])("%s is transient", async (_case, bvid) => {
    const error = await importFailure(`https://www.bilibili.com/video/${bvid}`);
    expect(error.permanent).toBe(false);
  });

  test("a link that names no video is refused before any request", async () => {
    const { requests } = await server.requestsOf(async () => {
      const error = await importFailure("https://space.bilibili.com/398765432");
      expect(error.permanent).toBe(true);
      expect(error.message).toContain("not a Bilibili video link");
    });
    expect(requests).toHaveLength(0);
  });
});

describe("pasting a saved Bilibili page", () => {
  test("a video page becomes a note from its initial state", () => {
    const document = bilibiliImporter.parsePasted(fixture("video-page.html"), `https://www.bilibili.com/video/${BVID}/`);
    expect(document.title).toBe("【硬核科普】为什么飞机的窗户都是圆角的？");
    expect(document.author).toBe("航空小课堂_老周");
    expect(document.publishedAt).toBe("2024-06-10T06:13:20.000Z");
    expect(document.tags).toEqual(["航空", "科普", "金属疲劳", "科学科普"]);
    expect(document.markdown).toContain("本期聊聊应力集中、金属疲劳，以及现代客机舷窗的三层结构。");
    expect(document.markdown).not.toContain("subtitles");
  });

  test("a festival page keeps the video in videoInfo", () => {
    const document = bilibiliImporter.parsePasted(fixture("festival-page.html"));
    expect(document.title).toBe("致毕业：那些没说出口的再见");
    expect(document.author).toBe("珞珈山影像工作室");
    expect(document.tags).toEqual(["毕业季", "武汉大学", "日常"]);
    expect(document.sourceUrl).toBe("https://www.bilibili.com/video/BV1Qm4y1K7zG");
  });

  test("a deleted video's page is a permanent not-found", () => {
    const error = pastedFailure(fixture("deleted-page.html"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("does not exist");
  });

  test("a page whose state says -403 needs a login", () => {
    const page = '<!DOCTYPE html><html><body><script>window.__INITIAL_STATE__={"videoData":{},"error":{"code":403,"trueCode":-403}}</script></body></html>';
    const error = pastedFailure(page);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("logged-in");
  });

  test("a risk-control page is blocked access, not a video", () => {
    const error = pastedFailure(fixture("risk-page.html"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("blocked");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("an HTML page without video state is refused", () => {
    const error = pastedFailure("<!DOCTYPE html><html><head><title>哔哩哔哩</title></head><body></body></html>");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("no Bilibili video data");
  });

  test("pasted plain text is kept as written", () => {
    const document = bilibiliImporter.parsePasted("# 飞机窗户为什么是圆角\n\n应力集中与金属疲劳。");
    expect(document.title).toBe("飞机窗户为什么是圆角");
    expect(document.markdown).toBe("# 飞机窗户为什么是圆角\n\n应力集中与金属疲劳。");
  });
});

test("subtitle timestamps are mm:ss, with hours past the hour", () => {
  expect(timestamp(4.19)).toBe("00:04");
  expect(timestamp(62.3)).toBe("01:02");
  expect(timestamp(3725)).toBe("1:02:05");
});
