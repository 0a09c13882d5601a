import { describe, expect, test } from "bun:test";
import { PASTE_INSTEAD } from "../../../../src/modules/imports/import-error";
import type { ImportedDocument } from "../../../../src/modules/imports/platforms/types";
import { wechatImporter } from "../../../../src/modules/imports/platforms/wechat";
import { readFixture } from "../../../support/platform-fixtures";
import { importFailureOf as failureOf } from "../../../support/import-failure";

const ARTICLE_URL = "https://mp.weixin.qq.com/s/Lq1fJ8h2cZ3xVYn0KmTr4w";

function paste(html: string, url: string | undefined = ARTICLE_URL): ImportedDocument {
  return wechatImporter.parsePasted(html, url);
}


/** The normal-article fixture with one piece of its markup swapped, to test fallbacks and hostile input. */
function articleWith(from: string | RegExp, to: string): string {
  const html = readFixture("wechat", "article.html");
  const changed = html.replace(from, to);
  expect(changed).not.toBe(html);
  return changed;
}

function imageUrls(markdown: string): string[] {
  return [...markdown.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((match) => match[1]!);
}

describe("a normal WeChat article (item_show_type 0)", () => {
  const document = paste(readFixture("wechat", "article.html"));

  test("takes the title from #activity-name, trimmed", () => {
    expect(document.title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
  });

  test("names the personal author and the publishing account", () => {
    expect(document.author).toBe("轩辕 (Account: 轩辕的编程宇宙)");
  });

  test("reads the publish time from `var ct` as ISO 8601", () => {
    expect(document.publishedAt).toBe("2025-11-10T04:00:10.000Z");
  });

  test("keeps the body's sentences, headings, lists and quotes as Markdown", () => {
    expect(document.markdown).toStartWith("在单机程序里，一把 `synchronized` 就能解决并发问题");
    expect(document.markdown).toContain("## 一、最朴素的实现：SETNX");
    expect(document.markdown).toContain("1. **锁过期了，业务还没跑完**：另一个实例拿到了锁");
    expect(document.markdown).toContain("- 用看门狗（watchdog）给长任务续期，Redisson 已经内置；");
    expect(document.markdown).toContain("> 释放锁必须“先比对再删除”");
  });

  test("turns lazy data-src images into https mmbiz images with plain ampersands", () => {
    const urls = imageUrls(document.markdown);
    expect(urls).toEqual([
      "https://mmbiz.qpic.cn/sz_mmbiz_png/j3gficicyOvasIxqlKv3lB8GrBYA2vT8PuUVmoGBvAicB0qqWZ0vyCXRnYvKfvYQ6mH4sxkh3eGxMJ7iaMq4fOic0Qg/640?wx_fmt=png&from=appmsg",
      "https://mmbiz.qpic.cn/sz_mmbiz_jpg/j3gficicyOvasIxqlKv3lB8GrBYA2vT8PuHq0bYx2lUm7iaTmtiaB4ibcicV9Ic2gFZkqBdCj4MlhFicwibLWmP7Cvjs3g/640?wx_fmt=jpeg&tp=webp&wxfrom=5&wx_lazy=1&wx_co=1",
    ]);
    expect(document.markdown).toContain("![加锁流程图](https://mmbiz.qpic.cn/");
    expect(document.markdown).not.toContain("data-src");
    expect(document.markdown).not.toContain("data:image");
    expect(document.markdown).not.toContain("&amp;");
  });

  test("turns code snippets into fenced blocks without line numbers, one line per <code>", () => {
    expect(document.markdown).toContain(
      [
        "```java",
        "String token = UUID.randomUUID().toString();",
        "Boolean ok = redis.opsForValue()",
        '    .setIfAbsent("lock:order:42", token, Duration.ofSeconds(30));',
        "if (!Boolean.TRUE.equals(ok)) {",
        "    throw new LockBusyException();",
        "}",
        "```",
      ].join("\n"),
    );
    expect(document.markdown).toContain('```lua\nif redis.call("get", KEYS[1]) == ARGV[1] then\n');
    // The line-index <ul> of empty <li>s would show up as bare bullets.
    expect(document.markdown).not.toMatch(/^-\s*$/m);
  });

  test("keeps real links and drops javascript: ones, keeping their text", () => {
    expect(document.markdown).toContain(
      "[一文讲透 Redis 主从复制](https://mp.weixin.qq.com/s?__biz=MzI5NjQ0MzM1Mg==&mid=2247490011&idx=1&sn=8d1c3b2a0f9e8d7c6b5a4f3e2d1c0b9a&scene=21#wechat_redirect)",
    );
    expect(document.markdown).toContain("点击关注，下期聊聊 Redisson 的看门狗。");
    expect(document.markdown).not.toContain("javascript:");
  });

  test("takes hashtag topics from #js_tags without the # or the counts", () => {
    expect(document.tags).toEqual(["Redis", "分布式系统"]);
  });

  test("uses og:url as the source, over https and without #rd", () => {
    expect(document.sourceUrl).toBe(
      "https://mp.weixin.qq.com/s?__biz=MzI5NjQ0MzM1Mg==&mid=2247491234&idx=1&sn=3f2a9c1e7b8d4f6a0c5e2b1d9f8a7c6e&chksm=ec4c1a2fdb3b93391f2e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a",
    );
  });

  test("leaves page chrome (profile card, QR code, comments, reward) out of the body", () => {
    expect(document.markdown).not.toContain("微信扫一扫");
    expect(document.markdown).not.toContain("功能介绍");
    expect(document.markdown).not.toContain("喜欢作者");
    expect(document.markdown).not.toContain("留言");
  });
});

describe("WeChat metadata fallbacks", () => {
  test("without #activity-name the title comes from `var msg_title`", () => {
    const html = articleWith(/<h1 class="rich_media_title " id="activity-name">[\s\S]*?<\/h1>/, "");
    expect(paste(html).title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
  });

  test("msg_title escapes are decoded without running the script", () => {
    let html = articleWith(/<h1 class="rich_media_title " id="activity-name">[\s\S]*?<\/h1>/, "");
    html = html.replace(
      "var msg_title = '从零实现一个 Redis 分布式锁：原理、坑与最佳实践'.html(false);",
      "var msg_title = 'Redis \\x26amp; Lua\\uff1a\\x27\\u5206\\u5e03\\u5f0f\\x27 \\u9501'.html(false);",
    );
    expect(paste(html).title).toBe("Redis & Lua：'分布式' 锁");
  });

  test("any HTML entity in a script string is decoded, named or numeric, escaped once or twice", () => {
    let html = articleWith(/<h1 class="rich_media_title " id="activity-name">[\s\S]*?<\/h1>/, "");
    html = html.replace(
      "var msg_title = '从零实现一个 Redis 分布式锁：原理、坑与最佳实践'.html(false);",
      "var msg_title = 'Caf&eacute; &copy; &mdash; &#x4e2d; &amp;quot;q&amp;quot;'.html(false);",
    );
    expect(paste(html).title).toBe('Café © — 中 "q"');
  });

  test("without #js_name the account comes from `var nickname = htmlDecode(…)`", () => {
    const html = articleWith(/<a href="javascript:void\(0\);" class="wx_tap_link[^>]*id="js_name">[\s\S]*?<\/a>/, "");
    expect(paste(html).author).toBe("轩辕 (Account: 轩辕的编程宇宙)");
  });

  test("without `var ct` the time comes from `create_time = \"…\" * 1`", () => {
    const html = articleWith('var ct = "1762747210";', "");
    expect(paste(html).publishedAt).toBe("2025-11-10T04:00:10.000Z");
  });

  test("an implausible timestamp gives no publish time rather than a wrong one", () => {
    const html = articleWith('var ct = "1762747210";', 'var ct = "99999999999";').replace(
      'var create_time = "1762747210" * 1;',
      "",
    );
    expect(paste(html).publishedAt).toBeUndefined();
  });

  test("an account without a personal author is named as the account alone", () => {
    const html = articleWith('var author = "轩辕";', 'var author = "";').replace(
      '<meta name="author" content="轩辕" />',
      "",
    );
    expect(paste(html).author).toBe("Account: 轩辕的编程宇宙");
  });

  test("without og:url the source is the pasted URL, normalised", () => {
    const html = articleWith(/<meta property="og:url"[^>]*>/, "").replace(/var msg_link = "[^"]*";/, "");
    expect(paste(html, "http://mp.weixin.qq.com/s/Lq1fJ8h2cZ3xVYn0KmTr4w#rd").sourceUrl).toBe(ARTICLE_URL);
  });
});

describe("an image-share page (item_show_type 8)", () => {
  const document = paste(readFixture("wechat", "image-share.html"));

  test("reads title, account and time from cgiDataNew and window.ct", () => {
    expect(document.title).toBe("平台集体降佣，商家能喘口气了吗？");
    expect(document.author).toBe("Account: 36氪");
    expect(document.publishedAt).toBe("2025-11-05T10:30:00.000Z");
  });

  test("decodes JsDecode text (\\x26quot;, \\x0a) into paragraphs", () => {
    expect(document.markdown).toStartWith("双十一前夜，三家头部平台同时调低了佣金，幅度在 0.5 到 2 个百分点之间。\n\n");
    expect(document.markdown).toContain('正在从"补贴用户"转向"留住商家"');
  });

  test("lists every picture once, in order, over https, without watermark or share-cover copies", () => {
    const urls = imageUrls(document.markdown);
    expect(urls).toEqual([
      "https://mmbiz.qpic.cn/mmbiz_jpg/QicyPhNHD5vbM9JtXr4t1T9OqRZUWA7b3q6gG0yK1bDqCMy0iboM6icFr3EViaPX5ib1ZpWkHj4UnuBxH4pK5Xia1hEw/0?wx_fmt=jpeg&from=appmsg",
      "https://mmbiz.qpic.cn/mmbiz_png/QicyPhNHD5vbM9JtXr4t1T9OqRZUWA7b3jS1x2icw5xUgaJ3Qm6vS3oTtk9Vw4XuibDnX1kOd0H8ZgVhQ2ZicPkN7Q/0?wx_fmt=png&from=appmsg",
      "https://mmbiz.qpic.cn/mmbiz_jpg/QicyPhNHD5vbM9JtXr4t1T9OqRZUWA7b3zqGkRmp8VibOUnfIrX3CxmPpmQ1h2CpmOZIk8MTGfzbgFGDaT0qicn1Q/0?wx_fmt=jpeg",
    ]);
  });

  test("has no tags and a normalised source URL", () => {
    expect(document.tags).toEqual([]);
    expect(document.sourceUrl).toStartWith("https://mp.weixin.qq.com/s?__biz=MzI2NDk5NzA0Mw==&mid=2247634521&idx=2");
  });
});

describe("a text-share page (item_show_type 10)", () => {
  const document = paste(readFixture("wechat", "text-share.html"));

  test("reads title, author, account and time", () => {
    expect(document.title).toBe("今天在地铁上看到一位老人在用手机学 Python……");
    expect(document.author).toBe("周末 (Account: 码农周末)");
    expect(document.publishedAt).toBe("2025-10-31T09:00:00.000Z");
  });

  test("takes the full text from text_page_info, keeping angle brackets as text", () => {
    expect(document.markdown).toContain("屏幕上是 <for i in range(10)");
    expect(document.markdown).toContain("他说退休了没事干，想给孙子写个小游戏。");
    expect(document.markdown).toEndWith("你最近在学什么？");
    expect(imageUrls(document.markdown)).toEqual([]);
  });
});

describe("WeChat pages that hold no article fail permanently, saying why", () => {
  test("a deleted article", () => {
    const error = failureOf(() => paste(readFixture("wechat", "deleted.html")));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("deleted by its author");
  });

  test("a deleted article on the English page", () => {
    const html = readFixture("wechat", "deleted.html").replace(
      "该内容已被发布者删除",
      "The content has been deleted by the author.",
    );
    const error = failureOf(() => paste(html));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("deleted by its author");
  });

  test("an article taken down for a violation, with WeChat's reason", () => {
    const error = failureOf(() => paste(readFixture("wechat", "violation.html")));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("violating its rules");
    expect(error.message).toContain("即时通信工具公众信息服务发展管理暂行规定");
  });

  test("a temporarily unavailable article", () => {
    const error = failureOf(() => paste(readFixture("wechat", "temporarily-unavailable.html")));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("temporarily unavailable");
    expect(error.message).toContain(PASTE_INSTEAD);
  });

  test("the captcha page, recognised by its text", () => {
    const error = failureOf(() => paste(readFixture("wechat", "captcha.html")));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("WeChat blocked automated access");
    expect(error.message).toEndWith(PASTE_INSTEAD);
  });

  test("any page whose URL is the captcha path, whatever it contains", () => {
    const url = "https://mp.weixin.qq.com/mp/wappoc_appmsgcaptcha?poc_token=HXGyl2ij&target_url=https%3A%2F%2Fmp.weixin.qq.com%2Fs%2Fx";
    const error = failureOf(() => paste(readFixture("wechat", "article.html"), url));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("WeChat blocked automated access");
  });

  test("a video page with no article body", () => {
    const error = failureOf(() => paste(readFixture("wechat", "no-body.html")));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("No article found");
  });

  test("an article whose #js_content is empty", () => {
    const html = articleWith(
      /(<div class="rich_media_content[^>]*id="js_content"[^>]*>)[\s\S]*?(<script type="text\/javascript" nonce="842146135" reportloaderror>\s*var first_sceen__time)/,
      "$1</div>$2",
    );
    const error = failureOf(() => paste(html));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("No article found");
  });

  test("another site's HTML pasted as a WeChat page", () => {
    const error = failureOf(() => paste(readFixture("web", "blog-article.html")));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("No article found");
  });
});

describe("pasting plain text for a WeChat link", () => {
  test("keeps the text as Markdown, titled by its first heading", () => {
    const text = "转载自公众号\n\n# 从零实现一个 Redis 分布式锁\n\n在单机程序里，一把 synchronized 就能解决并发问题。";
    const document = paste(text);
    expect(document.title).toBe("从零实现一个 Redis 分布式锁");
    expect(document.markdown).toBe(text);
    expect(document.sourceUrl).toBe(ARTICLE_URL);
    expect(document.tags).toEqual([]);
  });

  test("empty content is a permanent error", () => {
    const error = failureOf(() => paste("  \n\t "));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("empty");
  });
});

describe("hostile WeChat pages", () => {
  test("scripts, event handlers and javascript: links inside #js_content never reach the Markdown", () => {
    const html = articleWith(
      '<p style="font-size: 16px;"><a href="javascript:void(0);"',
      `<p>危险内容<script>alert("xss")</script><img src="x" onerror="alert(1)"><a href="JavaScript:alert(document.cookie)">点我</a><a href=" javascript:alert(2)">再点</a><a href="data:text/html,<script>alert(3)</script>">数据</a></p><p style="font-size: 16px;"><a href="javascript:void(0);"`,
    );
    const document = paste(html);
    expect(document.markdown).toContain("危险内容点我再点数据");
    expect(document.markdown).not.toMatch(/alert|javascript:|data:text|onerror|<script/i);
  });

  test("a very long title is cut to 500 UTF-16 units", () => {
    const long = "很长的标题".repeat(120);
    const html = articleWith("从零实现一个 Redis 分布式锁：原理、坑与最佳实践\n          </h1>", `${long}\n          </h1>`);
    expect(paste(html).title).toBe(long.slice(0, 500));
  });

  test("with no title anywhere, the first line of the body becomes the title", () => {
    const html = articleWith(/<h1 class="rich_media_title " id="activity-name">[\s\S]*?<\/h1>/, "")
      .replace(/var msg_title = '[^']*'\.html\(false\);/, "")
      .replace(/<meta property="og:title"[^>]*>/, "");
    const title = paste(html).title;
    expect(title).toStartWith("在单机程序里，一把 `synchronized` 就能解决并发问题");
    expect(Array.from(title).length).toBeLessThanOrEqual(200);
  });

  test("a whitespace-only #activity-name falls back instead of giving an empty title", () => {
    const html = articleWith(/(id="activity-name">)[\s\S]*?(<\/h1>)/, "$1 \n\t $2");
    expect(paste(html).title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
  });

  test("a body nested thousands deep fails permanently instead of overflowing the stack", () => {
    const html = articleWith(/(id="js_content"[^>]*>)/, `$1${"<section>".repeat(5000)}很深`);
    const error = failureOf(() => paste(html));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("nested too deeply");
  });

  test("unterminated script strings and runaway brackets do not hang or throw", () => {
    const html = readFixture("wechat", "image-share.html").replace(
      "window.picture_page_info_list = [",
      "window.picture_page_info_list = [{ cdn_url: 'https://mmbiz.qpic.cn/unterminated\n",
    );
    const document = paste(html);
    expect(document.title).toBe("平台集体降佣，商家能喘口气了吗？");
  });
});
