import { afterAll, describe, expect, test } from "bun:test";
import { ImportError, PASTE_INSTEAD } from "../../../../src/modules/imports/import-error";
import { createDouyinImporter, douyinImporter } from "../../../../src/modules/imports/platforms/douyin";
import type { Fetcher } from "../../../../src/modules/imports/platforms/types";
import { importFailureOf, importRejectionOf } from "../../../support/import-failure";
import { readFixture } from "../../../support/platform-fixtures";
import { startPlatformServer } from "../../../support/platform-server";

const fixture = (name: string) => readFixture("douyin", name);

const VIDEO = "7380912345678901234";
const NOTE = "7392345678901234567";
const SHARE_QUERY =
  "region=CN&mid=7380912400000000001&u_code=0&did=MS4wLjABAAAAr9kZ1x2C3v4B5n6M7q8W9e0R1t2Y3u4I5o6P7a8S9d0&iid=MS4wLjABAAAAq8W9e0R1t2Y3u4I5o6P7a8S9d0F1g2H3j4K5l6Z7x8&with_sec_did=1&titleType=title&share_sign=Xy9z8W7v6U5t4S3r2Q1p0O9n8M7l6K5j4I3h2G1f0E-&share_version=290100&ts=1718430123&from_aid=6383&from_ssr=1";

const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
const redirect = (location: string) => new Response(null, { status: 302, headers: { location } });

/** Douyin's short links and unsigned share pages as they answer an iPhone browser. */
function douyin(url: URL): Response | undefined {
  switch (`${url.host}${url.pathname}`) {
    case "v.douyin.com/iRNBho6u/":
      return redirect(`https://www.iesdouyin.com/share/video/${VIDEO}/?${SHARE_QUERY}`);
    case "v.douyin.com/iRNnote1/":
      return redirect(`https://www.iesdouyin.com/share/note/${NOTE}/?${SHARE_QUERY}`);
    case "v.douyin.com/iExpire0/":
      return redirect("https://www.douyin.com/");
    case `www.iesdouyin.com/share/video/${VIDEO}/`:
      return html(fixture("share-video.html"));
    case `www.iesdouyin.com/share/note/${NOTE}/`:
      return html(fixture("share-note.html"));
    case "www.iesdouyin.com/share/video/7312345678901234567/":
      return html(fixture("share-filtered.html"));
    case "www.iesdouyin.com/share/video/7399999999999999999/":
      return html(fixture("page-without-data.html"));
    case "www.iesdouyin.com/share/video/7388888888888888888/":
      return html("<html><body>503 Service Temporarily Unavailable</body></html>", 503);
    case "www.douyin.com/":
      return html("<!DOCTYPE html><html><head><title>抖音-记录美好生活</title></head><body></body></html>");
  }
  return undefined;
}



const server = startPlatformServer(douyin);
afterAll(() => server.stop());

const importer = createDouyinImporter({ shareBase: `${server.origin}/www.iesdouyin.com` });

/** The ImportError an import of `url` fails with. */
const importFailure = (url: string) => importRejectionOf(importer.fetchDocument(url, server.fetcher));
/** The ImportError pasting `content` fails with. */
const pastedFailure = (content: string) => importFailureOf(() => douyinImporter.parsePasted(content));

/** A share page; real ones key the post by the literal route id `video_(id)/page`. */
const routerPage = (item: unknown, route = "video_(id)/page") =>
  `<!DOCTYPE html><html><body><script>window._ROUTER_DATA = ${JSON.stringify({
    loaderData: { [route]: { videoInfoRes: { status_code: 0, item_list: [item], filter_list: [] } } },
  })}</script></body></html>`;

describe("fetching Douyin posts through the share page", () => {
  test("a video link is read from the share page in one request, as an iPhone", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      importer.fetchDocument(`https://www.douyin.com/video/${VIDEO}`, server.fetcher),
    );
    expect(document.title).toBe("在重庆洪崖洞看夜景，千与千寻既视感✨ 记得避开周末晚上八点的人流高峰");
    expect(document.markdown).toStartWith(
      "在重庆洪崖洞看夜景，千与千寻既视感✨ 记得避开周末晚上八点的人流高峰\n#重庆旅游 #洪崖洞 #城市夜景 @重庆文旅",
    );
    expect(document.markdown).toContain("- Author: 山城小胖哥");
    expect(document.markdown).toContain("![](https://p3-sign.douyinpic.com/tos-cn-p-0015/oAfDqEBgIAn9ZbCLVeeQhAAJeIAfYtQ7AEzDEe~");
    expect(document.tags).toEqual(["重庆旅游", "洪崖洞", "城市夜景"]);
    expect(document.author).toBe("山城小胖哥");
    expect(document.publishedAt).toBe("2024-06-15T03:50:56.000Z");
    expect(document.sourceUrl).toBe(`https://www.douyin.com/video/${VIDEO}`);

    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe(`https://www.iesdouyin.com/share/video/${VIDEO}/`);
    expect(requests[0]?.headers["user-agent"]).toContain("iPhone");
  });

  test("an image post comes out with all its pictures", async () => {
    const document = await importer.fetchDocument(`https://www.douyin.com/note/${NOTE}`, server.fetcher);
    expect(document.title).toBe("秋冬氛围感穿搭｜小个子也能穿出大长腿");
    expect(document.tags).toEqual(["秋冬穿搭", "小个子穿搭", "ootd"]);
    expect(document.markdown.match(/!\[\]\(https:\/\/p26-sign\.douyinpic\.com\/tos-cn-i-0813\//g)).toHaveLength(3);
    expect(document.sourceUrl).toBe(`https://www.douyin.com/note/${NOTE}`);
  });

  test.each([
    ["a modal_id link", `https://www.douyin.com/discover?modal_id=${VIDEO}`],
    ["a share page link", `https://www.iesdouyin.com/share/video/${VIDEO}/?region=CN`],
    ["a user page with the video open", `https://www.douyin.com/user/MS4wLjABAAAA8kq2Zr1vYwXx3JcQpN0t5mHbLfUeDsGaOiKyTzR7WvE?modal_id=${VIDEO}`],
  ])("%s names the same video", async (_case, url) => {
    const document = await importer.fetchDocument(url, server.fetcher);
    expect(document.author).toBe("山城小胖哥");
  });

  test("a v.douyin.com short link is followed and the share page it lands on is used", async () => {
    const { result: document, requests } = await server.requestsOf(() =>
      importer.fetchDocument("https://v.douyin.com/iRNBho6u/", server.fetcher),
    );
    expect(document.sourceUrl).toBe(`https://www.douyin.com/video/${VIDEO}`);
    expect(requests.map((seen) => new URL(seen.url).host)).toEqual(["v.douyin.com", "www.iesdouyin.com"]);
    expect(requests.every((seen) => seen.headers["user-agent"]?.includes("iPhone"))).toBe(true);
  });

  test("a short link to an image post finds the note", async () => {
    const document = await importer.fetchDocument("https://v.douyin.com/iRNnote1/", server.fetcher);
    expect(document.title).toBe("秋冬氛围感穿搭｜小个子也能穿出大长腿");
  });

  test("the default importer asks the real share host", async () => {
    const { requests } = await server.requestsOf(() => douyinImporter.fetchDocument(`https://www.douyin.com/video/${VIDEO}`, server.fetcher));
    expect(requests[0]?.url).toBe(`https://www.iesdouyin.com/share/video/${VIDEO}/`);
  });

  test("a deleted post in filter_list is permanent and gives Douyin's reason", async () => {
    const error = await importFailure("https://www.douyin.com/video/7312345678901234567");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("unavailable");
    expect(error.message).toContain("因作品权限或已被删除，无法观看");
  });

  test("a page without data needs a signed request: permanent, paste instead", async () => {
    const error = await importFailure("https://www.douyin.com/video/7399999999999999999");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("signed request");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("a server error is transient", async () => {
    const error = await importFailure("https://www.douyin.com/video/7388888888888888888");
    expect(error.permanent).toBe(false);
  });

  test("a missing share page is permanent", async () => {
    const error = await importFailure("https://www.douyin.com/video/7377777777777777777");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("Douyin says this post is not found (HTTP 404)");
  });

  test("an expired short link that lands on the home page is refused", async () => {
    const error = await importFailure("https://v.douyin.com/iExpire0/");
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("short link does not lead to a video");
  });

  test("a link that names no post is refused before any request", async () => {
    const { requests } = await server.requestsOf(async () => {
      const error = await importFailure("https://www.douyin.com/user/MS4wLjABAAAA8kq2Zr1vYwXx3JcQpN0t5mHbLfUeDsGaOiKyTzR7WvE");
      expect(error.permanent).toBe(true);
      expect(error.message).toContain("not a Douyin post link");
    });
    expect(requests).toHaveLength(0);
  });
});

describe("pasting a saved Douyin page", () => {
  test("a share page becomes a note", () => {
    const document = douyinImporter.parsePasted(fixture("share-video.html"));
    expect(document.title).toBe("在重庆洪崖洞看夜景，千与千寻既视感✨ 记得避开周末晚上八点的人流高峰");
    expect(document.tags).toEqual(["重庆旅游", "洪崖洞", "城市夜景"]);
  });

  test("every literal route id is read, and so is the post's number in its place", () => {
    for (const route of ["video_(id)/page", "note_(id)/page", "slides_(id)/page", "story_(id)/page", `video_(${VIDEO})/page`]) {
      const document = douyinImporter.parsePasted(routerPage({ aweme_id: VIDEO, desc: "洪崖洞夜景" }, route));
      expect(document.title).toBe("洪崖洞夜景");
    }
  });

  test("a route that is not a post's page is not taken for one", () => {
    const error = pastedFailure(routerPage({ aweme_id: VIDEO, desc: "洪崖洞夜景" }, "video_(id)/comments"));
    expect(error.message).toContain("signed request");
  });

  test("a douyin.com video page is read from its URL-encoded RENDER_DATA", () => {
    const document = douyinImporter.parsePasted(fixture("video-page-render-data.html"), `https://www.douyin.com/video/${VIDEO}`);
    expect(document.title).toBe("在重庆洪崖洞看夜景，千与千寻既视感✨ 记得避开周末晚上八点的人流高峰");
    expect(document.author).toBe("山城小胖哥");
    expect(document.publishedAt).toBe("2024-06-15T03:50:56.000Z");
    expect(document.tags).toEqual(["重庆旅游", "洪崖洞", "城市夜景"]);
    expect(document.markdown).toContain("![](https://p3-pc-sign.douyinpic.com/image-cut-tos-priv/4c9f1e2d3a5b7c8d9e0f1a2b3c4d5e6f~");
    expect(document.sourceUrl).toBe(`https://www.douyin.com/video/${VIDEO}`);
  });

  test("a filtered share page is refused with the reason", () => {
    const error = pastedFailure(fixture("share-filtered.html"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("因作品权限或已被删除");
  });

  test("a page with neither data block is refused", () => {
    const error = pastedFailure(fixture("page-without-data.html"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("signed request");
  });

  test("a description of hashtags only falls back to the author for the title", () => {
    const document = douyinImporter.parsePasted(
      routerPage({ aweme_id: VIDEO, desc: "#重庆 #夜景", author: { nickname: "山城小胖哥" }, text_extra: [] }),
    );
    expect(document.title).toBe("Douyin video by 山城小胖哥");
    expect(document.tags).toEqual(["重庆", "夜景"]);
  });

  test("a long first line is cut to 500 UTF-16 units, never through an emoji", () => {
    const document = douyinImporter.parsePasted(routerPage({ aweme_id: VIDEO, desc: `${"长".repeat(499)}😀😀 #tag` }));
    expect(document.title).toBe("长".repeat(499));
  });

  test("pasted plain text is kept as written", () => {
    const document = douyinImporter.parsePasted("洪崖洞夜景\n记得避开周末晚上八点");
    expect(document.title).toBe("洪崖洞夜景");
    expect(document.markdown).toBe("洪崖洞夜景\n记得避开周末晚上八点");
  });
});

describe("a Douyin video's sound, for its transcript", () => {
  test("is the video's own play_addr, without the watermark; never the music track", () => {
    const document = douyinImporter.parsePasted(fixture("share-video.html"));
    expect(document.media).toMatchObject({
      key: `douyin:${VIDEO}`,
      source: { url: "https://aweme.snssdk.com/aweme/v1/play/?video_id=v0200fg10000cpm3a2nog65l3a8b9c0g&ratio=720p&line=0", referer: "https://www.douyin.com/" },
    });
    expect(JSON.stringify(document.media)).not.toContain("ies-music");
  });

  test("the smallest bit_rate rendition is preferred", () => {
    const document = douyinImporter.parsePasted(
      routerPage({
        aweme_id: VIDEO,
        desc: "讲座",
        video: {
          play_addr: { url_list: ["https://v.example/playwm/?id=big"] },
          bit_rate: [
            { bit_rate: 2_000_000, play_addr: { url_list: ["https://v.example/play/?id=hd"] } },
            { bit_rate: 400_000, play_addr: { url_list: ["https://v.example/play/?id=small"] } },
          ],
        },
        music: { play_url: { url_list: ["https://music.example/song.mp3"] } },
      }),
    );
    expect(document.media?.source).toMatchObject({ url: "https://v.example/play/?id=small" });
  });

  test("an image post has nothing to transcribe", () => {
    expect(douyinImporter.parsePasted(fixture("share-note.html")).media).toBeUndefined();
  });
});
