import { afterAll, describe, expect, test } from "bun:test";
import { ImportError, PASTE_INSTEAD } from "../../../../src/modules/imports/import-error";
import type { Fetcher } from "../../../../src/modules/imports/platforms/types";
import { xiaohongshuImporter } from "../../../../src/modules/imports/platforms/xiaohongshu";
import { plainDesc, topicsInDesc } from "../../../../src/modules/imports/platforms/xiaohongshu/note-text";
import { importFailureOf, importRejectionOf } from "../../../support/import-failure";
import { readFixture } from "../../../support/platform-fixtures";
import { startPlatformServer } from "../../../support/platform-server";

const fixture = (name: string) => readFixture("xiaohongshu", name);

const NOTE = "6650a4f5000000001e0230d5";
const VIDEO_NOTE = "66f1c2a3000000002c02a1b7";
const TOKEN = "ABm7tPzKxV1cY5nQ8sR2wLdE4fGhJ6kMoN0pU3iTaB9Xc=";
const signed = (id: string) => `https://www.xiaohongshu.com/explore/${id}?xsec_token=${encodeURIComponent(TOKEN)}&xsec_source=pc_feed`;

const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
const redirect = (location: string) => new Response(null, { status: 302, headers: { location } });

/** Xiaohongshu as it answers today: signed links work, the rest redirect to home, a 404 look-alike or a captcha. */
function xiaohongshu(url: URL): Response | undefined {
  const route = `${url.host}${url.pathname}`;
  const tokenOk = url.searchParams.get("xsec_token") === TOKEN;
  switch (route) {
    case `www.xiaohongshu.com/explore/${NOTE}`:
    case `www.xiaohongshu.com/discovery/item/${NOTE}`:
      return tokenOk ? html(fixture("note-page.html")) : redirect("/explore");
    case `www.xiaohongshu.com/explore/${VIDEO_NOTE}`:
      return tokenOk ? html(fixture("video-note-untitled.html")) : redirect("/explore");
    case "www.xiaohongshu.com/explore/6651e0a1000000001f03c2d4":
      return redirect(
        "/404/sec_Kf8ZtLQb?source=note&error_code=300031&error_msg=%E5%BD%93%E5%89%8D%E7%AC%94%E8%AE%B0%E6%9A%82%E6%97%B6%E6%97%A0%E6%B3%95%E6%B5%8F%E8%A7%88",
      );
    case "www.xiaohongshu.com/explore/6652a3b4000000001e01f8e9":
      return redirect(
        `/website-login/captcha?redirectPath=${encodeURIComponent(url.href)}&verifyUuid=b4c6e8a0-3f21-4d7b-9a5e-1c2d3e4f5a6b&verifyType=102&verifyBiz=461`,
      );
    case "www.xiaohongshu.com/explore/6653b1c2000000001e02a7b8":
      return new Response('{"code":300011,"success":false,"msg":"当前账号存在异常"}', {
        status: 461,
        headers: { "content-type": "application/json", verifytype: "102", verifyuuid: "c1d2e3f4" },
      });
    case "www.xiaohongshu.com/explore/6654c0d3000000001e00b6c7":
      return html("<html><body>502 Bad Gateway</body></html>", 503);
    case "www.xiaohongshu.com/explore/6655d9e8000000001e03c5d6":
      // A wrong token renders the app shell with no note in its state.
      return html(fixture("captcha-page.html"));
    case "www.xiaohongshu.com/explore":
    case "www.xiaohongshu.com/":
      return html(fixture("home-page.html"));
    case "www.xiaohongshu.com/404/sec_Kf8ZtLQb":
      return html(fixture("not-found-page.html"));
    case "www.xiaohongshu.com/website-login/captcha":
      return html(fixture("captcha-page.html"));
    case "xhslink.com/a/Bc7dQ2xYz":
      return redirect(
        `https://www.xiaohongshu.com/discovery/item/${NOTE}?app_platform=ios&app_version=8.38&share_from_user_hidden=true&xsec_source=app_share&type=normal&xsec_token=${encodeURIComponent(TOKEN)}&author_share=1&xhsshare=CopyLink&shareRedId=ODlFNzc5Sj42NzUyOTgwNjg3OTlGPEhN&apptime=1716873443&share_id=3f1e2d4c5b6a47988f7e6d5c4b3a2910`,
      );
    case "xhslink.com/a/Expired0":
      return redirect("https://www.xiaohongshu.com/");
    case "xhslink.com/a/Gone404":
      return html("", 404);
  }
  return undefined;
}



const server = startPlatformServer(xiaohongshu);
afterAll(() => server.stop());

/** The ImportError an import of `url` fails with. */
const importFailure = (url: string) => importRejectionOf(xiaohongshuImporter.fetchDocument(url, server.fetcher));
/** The ImportError pasting `content` fails with. */
const pastedFailure = (content: string, url?: string) => importFailureOf(() => xiaohongshuImporter.parsePasted(content, url));

describe("Xiaohongshu note text", () => {
  test("topics render as plain hashtags, adjacent ones kept apart, stickers removed", () => {
    expect(plainDesc("好吃[派对R]\n#上海咖啡[话题]# #武康路[话题]##citywalk[话题]#")).toBe(
      "好吃\n#上海咖啡 #武康路 #citywalk",
    );
    expect(topicsInDesc("#a[话题]##b[话题]# #a[话题]#")).toEqual(["a", "b"]);
  });
});

describe("pasting a saved Xiaohongshu page", () => {
  test("a note page becomes a note with its title, text, images, author and date", () => {
    const document = xiaohongshuImporter.parsePasted(fixture("note-page.html"), signed(NOTE));
    expect(document.title).toBe("武康路咖啡店合集☕️ 周末citywalk不踩雷");
    expect(document.author).toBe("咖啡续命的小鹿");
    expect(document.publishedAt).toBe("2024-05-24T14:32:21.000Z");
    expect(document.markdown).toStartWith("上海周末citywalk，武康路这几家咖啡店真的可以闭眼冲\n\n1️⃣ Cafe Lumière");
    expect(document.markdown).toContain("#上海咖啡 #武康路 #citywalk #周末去哪儿");
    expect(document.markdown).not.toContain("[话题]");
    expect(document.markdown).not.toContain("[赞R]");
    expect(document.markdown.match(/!\[\]\(https:\/\/sns-webpic-qc\.xhscdn\.com\/[^)]+!nd_dft_wlteh_webp_3\)/g)).toHaveLength(3);
    expect(document.sourceUrl).toBe(signed(NOTE));
  });

  test("tags are the note's topics plus the hashtags in its text, without duplicates", () => {
    const document = xiaohongshuImporter.parsePasted(fixture("note-page.html"));
    expect(document.tags).toEqual(["上海咖啡", "武康路", "citywalk", "上海探店", "周末去哪儿"]);
  });

  test("the word undefined in the note's text survives the bare undefined values in the state", () => {
    const page = fixture("note-page.html");
    expect(page).toContain('"xsecToken":undefined');
    const document = xiaohongshuImporter.parsePasted(page);
    expect(document.markdown).toContain("别信点评上写的“undefined 号店”，那家已经关了");
    expect(document.markdown).not.toContain("null");
  });

  test("an untitled video note takes its first line as title and links the video", () => {
    const document = xiaohongshuImporter.parsePasted(fixture("video-note-untitled.html"));
    expect(document.title).toBe("第一次带爸妈去新疆自驾🚗 赛里木湖的蓝真的不用调色");
    expect(document.markdown).toContain("#新疆旅行 #赛里木湖 #自驾游");
    expect(document.markdown).toContain(
      "[Video](https://sns-video-bd.xhscdn.com/pre_post/1040g2t0318g9ab4s6g005o1b2c3d4e5f6g7h8i9)",
    );
    expect(document.tags).toEqual(["新疆旅行", "赛里木湖", "自驾游"]);
    expect(document.author).toBe("阿木在路上");
    expect(document.sourceUrl).toBe(`https://www.xiaohongshu.com/explore/${VIDEO_NOTE}`);
  });

  test("the mobile share page's noteData is read too", () => {
    const document = xiaohongshuImporter.parsePasted(fixture("mobile-share-page.html"));
    expect(document.title).toBe("一人食｜10分钟番茄肥牛饭🍅");
    expect(document.author).toBe("今天也要好好吃饭");
    expect(document.tags).toEqual(["一人食", "快手菜"]);
    expect(document.markdown).toStartWith("下班回家懒得做饭就做这个\n");
    expect(document.markdown).toContain("![](https://sns-na-i6.xhscdn.com/1040g008310oeh3bd5u6g4a0b8c9d0e1f2a3b4c5");
  });

  test("the note named by currentNoteId wins over other entries in the map", () => {
    const state = {
      note: {
        currentNoteId: "bbbbbbbbbbbbbbbbbbbbbbbb",
        noteDetailMap: {
          bbbbbbbbbbbbbbbbbbbbbbbb: { note: { noteId: "bbbbbbbbbbbbbbbbbbbbbbbb", title: "当前笔记", desc: "" } },
          cccccccccccccccccccccccc: { note: { noteId: "cccccccccccccccccccccccc", title: "上一篇", desc: "" } },
        },
      },
    };
    const page = `<html><head><title>x</title></head><body><script>window.__INITIAL_STATE__=${JSON.stringify(state)}</script></body></html>`;
    expect(xiaohongshuImporter.parsePasted(page).title).toBe("当前笔记");
  });

  test("the look-alike 404 page is refused, never saved as a note", () => {
    const error = pastedFailure(fixture("not-found-page.html"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("你访问的页面不见了");
    expect(error.message).toContain("xsec_token");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("a captcha page has no note and is refused", () => {
    const error = pastedFailure(fixture("captcha-page.html"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("captcha");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("pasted plain text is kept as written", () => {
    const text = "武康路咖啡店合集\n\n拿铁很稳，肉桂卷一定要点 #上海咖啡";
    const document = xiaohongshuImporter.parsePasted(text, signed(NOTE));
    expect(document.title).toBe("武康路咖啡店合集");
    expect(document.markdown).toBe(text);
  });
});

describe("fetching Xiaohongshu notes through the fetcher", () => {
  test("a signed note link comes out as a note, in one request that looks like a browser", async () => {
    const before = server.seen.length;
    const document = await xiaohongshuImporter.fetchDocument(signed(NOTE), server.fetcher);
    expect(document.title).toBe("武康路咖啡店合集☕️ 周末citywalk不踩雷");
    expect(document.tags).toContain("周末去哪儿");
    const requests = server.seen.slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers["user-agent"]).toContain("Mozilla/5.0");
    expect(requests[0]?.headers["accept-language"]).toStartWith("zh-CN");
  });

  test("an xhslink.com short link is followed to the note and keeps its signature", async () => {
    const before = server.seen.length;
    const document = await xiaohongshuImporter.fetchDocument("http://xhslink.com/a/Bc7dQ2xYz", server.fetcher);
    expect(document.title).toBe("武康路咖啡店合集☕️ 周末citywalk不踩雷");
    expect(document.sourceUrl).toBe(
      `https://www.xiaohongshu.com/explore/${NOTE}?xsec_token=${encodeURIComponent(TOKEN)}&xsec_source=app_share`,
    );
    expect(server.seen.slice(before).map((seen) => new URL(seen.url).host)).toEqual([
      "xhslink.com",
      "www.xiaohongshu.com",
    ]);
  });

  test("a link without xsec_token lands on the home page: permanent, asks for a signed link", async () => {
    const error = await importFailure(`https://www.xiaohongshu.com/explore/${NOTE}`);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("home page");
    expect(error.message).toContain("xsec_token");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("an anonymous short link bouncing to the home page is the same failure", async () => {
    const error = await importFailure("https://xhslink.com/a/Expired0");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("home page");
  });

  test("the redirect to the look-alike 404 page fails instead of saving it", async () => {
    const error = await importFailure(signed("6651e0a1000000001f03c2d4"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("page not found");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("the captcha redirect fails as blocked automated access", async () => {
    const error = await importFailure(signed("6652a3b4000000001e01f8e9"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("blocked automated access");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("HTTP 461 is a captcha demand: permanent", async () => {
    const error = await importFailure(signed("6653b1c2000000001e02a7b8"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("captcha");
  });

  test("a server error is transient", async () => {
    const error = await importFailure(signed("6654c0d3000000001e00b6c7"));
    expect(error.permanent).toBe(false);
    expect(error.message).toContain("HTTP 503");
  });

  test("a note page whose state holds no note is 'captcha or not found'", async () => {
    const error = await importFailure(signed("6655d9e8000000001e03c5d6"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("captcha");
    expect(error.message).toContain("xsec_token");
  });

  test("an expired short link that never redirects is permanent", async () => {
    const error = await importFailure("https://xhslink.com/a/Gone404");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("short link");
  });

  test("a URL that is not a note link is refused before any request", async () => {
    const before = server.seen.length;
    const error = await importFailure("https://www.xiaohongshu.com/user/profile/5c9a1e6b000000001203d2f4");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("not a Xiaohongshu note link");
    expect(server.seen.length).toBe(before);
  });
});
