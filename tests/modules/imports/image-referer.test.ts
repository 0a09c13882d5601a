import { expect, test } from "bun:test";
import { createImporters } from "../../../src/modules/imports/platforms";

test("each platform's pictures are fetched with the Referer its own pages send", () => {
  const importers = createImporters({});
  const page = "https://mp.weixin.qq.com/s/abc";
  expect(importers.wechat.imageReferer(page)).toBe("https://mp.weixin.qq.com/");
  expect(importers.xiaohongshu.imageReferer("https://www.xiaohongshu.com/explore/1")).toBe("https://www.xiaohongshu.com/");
  expect(importers.bilibili.imageReferer("https://www.bilibili.com/video/BV1")).toBe("https://www.bilibili.com/");
  expect(importers.douyin.imageReferer("https://www.douyin.com/video/1")).toBe("https://www.douyin.com/");
  // A web article's pictures: the article's own address, as a browser sends it; pasted without one, none.
  expect(importers.web.imageReferer("https://blog.example.com/post?id=1")).toBe("https://blog.example.com/post?id=1");
  expect(importers.web.imageReferer(undefined)).toBeUndefined();
  expect(importers.web.imageReferer("javascript:alert(1)")).toBeUndefined();
});
