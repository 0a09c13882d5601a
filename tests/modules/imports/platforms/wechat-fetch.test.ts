import { afterAll, describe, expect, test } from "bun:test";
import { ImportError, PASTE_INSTEAD } from "../../../../src/modules/imports/import-error";
import type { Fetcher } from "../../../../src/modules/imports/platforms/types";
import { wechatImporter } from "../../../../src/modules/imports/platforms/wechat";
import { startFixtureServer } from "../../../fixtures/platforms/web/fixture-server";
import { readFixture } from "../../../support/platform-fixtures";
import { importRejectionOf as failureOf } from "../../../support/import-failure";

const WECHAT = "https://mp.weixin.qq.com";

const server = startFixtureServer({
  "/s/Lq1fJ8h2cZ3xVYn0KmTr4w": { body: readFixture("wechat", "article.html") },
  "/s/image-share": { body: readFixture("wechat", "image-share.html") },
  "/s/text-share": { body: readFixture("wechat", "text-share.html") },
  "/s/deleted": { body: readFixture("wechat", "deleted.html") },
  "/s/violation": { body: readFixture("wechat", "violation.html") },
  "/s/unavailable": { body: readFixture("wechat", "temporarily-unavailable.html") },
  "/s/video": { body: readFixture("wechat", "no-body.html") },
  "/s/captcha-text": { body: readFixture("wechat", "captcha.html") },
  "/s/blocked": { redirect: "/mp/wappoc_appmsgcaptcha?poc_token=HXGyl2ij&target_url=https%3A%2F%2Fmp.weixin.qq.com%2Fs%2Fblocked" },
  "/mp/wappoc_appmsgcaptcha": { body: readFixture("wechat", "captcha.html") },
  "/s/gone": { status: 404, body: "<html><body>Not Found</body></html>" },
  "/s/server-error": { status: 502, body: "<html><body>Bad Gateway</body></html>" },
  "/s/unavailable-503": { status: 503, body: "" },
  "/s/rate-limited": { status: 429, body: "" },
  "/s/forbidden": { status: 403, body: "" },
});

afterAll(() => server.stop());

function fetchWechat(path: string, fetcher: Fetcher = server.fetcher) {
  return wechatImporter.fetchDocument(`${WECHAT}${path}`, fetcher);
}


describe("fetching WeChat articles through the fetcher", () => {
  test("a normal article comes out with its metadata, images and code", async () => {
    const document = await fetchWechat("/s/Lq1fJ8h2cZ3xVYn0KmTr4w");
    expect(document.title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
    expect(document.author).toBe("轩辕 (Account: 轩辕的编程宇宙)");
    expect(document.publishedAt).toBe("2025-11-10T04:00:10.000Z");
    expect(document.tags).toEqual(["Redis", "分布式系统"]);
    expect(document.markdown).toContain("这时候，我们需要一把**分布式锁**。");
    expect(document.markdown).toContain(
      "![加锁流程图](https://mmbiz.qpic.cn/sz_mmbiz_png/j3gficicyOvasIxqlKv3lB8GrBYA2vT8PuUVmoGBvAicB0qqWZ0vyCXRnYvKfvYQ6mH4sxkh3eGxMJ7iaMq4fOic0Qg/640?wx_fmt=png&from=appmsg)",
    );
    expect(document.markdown).toContain("```java\nString token = UUID.randomUUID().toString();\n");
    expect(document.markdown).not.toContain("data-src");
    expect(document.sourceUrl).toStartWith("https://mp.weixin.qq.com/s?__biz=MzI5NjQ0MzM1Mg==&mid=2247491234");
  });

  test("asks like a browser, in Chinese", async () => {
    await fetchWechat("/s/Lq1fJ8h2cZ3xVYn0KmTr4w");
    const request = server.requests.findLast((seen) => seen.path === "/s/Lq1fJ8h2cZ3xVYn0KmTr4w");
    expect(request?.headers["user-agent"]).toContain("Mozilla/5.0");
    expect(request?.headers["accept-language"]).toStartWith("zh-CN");
  });

  test("an image-share page comes out with its pictures", async () => {
    const document = await fetchWechat("/s/image-share");
    expect(document.title).toBe("平台集体降佣，商家能喘口气了吗？");
    expect(document.author).toBe("Account: 36氪");
    expect(document.publishedAt).toBe("2025-11-05T10:30:00.000Z");
    expect(document.markdown.match(/!\[图\d\]\(https:\/\/mmbiz\.qpic\.cn\//g)).toHaveLength(3);
  });

  test("a text-share page comes out with its text", async () => {
    const document = await fetchWechat("/s/text-share");
    expect(document.author).toBe("周末 (Account: 码农周末)");
    expect(document.markdown).toContain("我突然觉得，学习这件事，真的没有太晚的时候。");
  });

  test("an http link with a fragment is fetched over https without it", async () => {
    await fetchWechat("/s/Lq1fJ8h2cZ3xVYn0KmTr4w");
    const document = await wechatImporter.fetchDocument("http://mp.weixin.qq.com/s/Lq1fJ8h2cZ3xVYn0KmTr4w#rd", server.fetcher);
    expect(document.title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
  });
});

describe("WeChat failures when fetching", () => {
  const permanentPages: [string, string, string][] = [
    ["a deleted article", "/s/deleted", "deleted by its author"],
    ["an article taken down for a violation", "/s/violation", "violating its rules"],
    ["a temporarily unavailable article", "/s/unavailable", "temporarily unavailable"],
    ["a video page with no article", "/s/video", "No article found"],
    ["a captcha page served in place of the article", "/s/captcha-text", "WeChat blocked automated access"],
    ["a redirect to the captcha path", "/s/blocked", "WeChat blocked automated access"],
    ["HTTP 404", "/s/gone", "not found"],
    ["HTTP 403", "/s/forbidden", "refused"],
  ];
  for (const [name, path, reason] of permanentPages) {
    test(`${name} is a permanent error that says why`, async () => {
      const error = await failureOf(fetchWechat(path));
      expect(error.permanent).toBe(true);
      expect(error.message).toContain(reason);
    });
  }

  test("blocked pages tell the user to paste instead", async () => {
    const error = await failureOf(fetchWechat("/s/blocked"));
    expect(error.message).toContain(PASTE_INSTEAD);
  });

  for (const [name, path] of [
    ["HTTP 502", "/s/server-error"],
    ["HTTP 503", "/s/unavailable-503"],
    ["HTTP 429", "/s/rate-limited"],
  ]) {
    test(`${name} is a transient error, to be retried`, async () => {
      const error = await failureOf(fetchWechat(path!));
      expect(error.permanent).toBe(false);
      expect(error.message).toContain("Try again");
    });
  }

  test("a link to another site is refused before any request", async () => {
    const before = server.requests.length;
    const error = await failureOf(wechatImporter.fetchDocument("https://example.com/s/abc", server.fetcher));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("not a WeChat article link");
    expect(server.requests.length).toBe(before);
  });

  test("a network failure is transient and hides the low-level cause", async () => {
    const failing: Fetcher = async () => {
      throw new TypeError("connect ECONNREFUSED 10.0.0.1:443");
    };
    const error = await failureOf(fetchWechat("/s/Lq1fJ8h2cZ3xVYn0KmTr4w", failing));
    expect(error.permanent).toBe(false);
    expect(error.message).not.toContain("ECONNREFUSED");
  });

  test("the fetcher's own ImportError (a blocked address, a timeout) passes through unchanged", async () => {
    const refused = new ImportError("Refused to fetch this address", { permanent: true });
    const error = await failureOf(
      fetchWechat("/s/Lq1fJ8h2cZ3xVYn0KmTr4w", async () => {
        throw refused;
      }),
    );
    expect(error).toBe(refused);
  });
});
