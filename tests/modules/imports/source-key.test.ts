import { describe, expect, test } from "bun:test";
import { sourceKeyOf } from "../../../src/modules/imports/source-key";

describe("sourceKeyOf", () => {
  test.each([
    ["wechat", "https://mp.weixin.qq.com/s?__biz=MzI5NjQ0MzM1Mg==&mid=2247491234&idx=2&sn=3f2a&chksm=ec4c", "wechat:MzI5NjQ0MzM1Mg==/2247491234/2"],
    ["bilibili", "https://www.bilibili.com/video/BV1Xb421E7Lm?p=1", "bilibili:BV1Xb421E7Lm"],
    ["xiaohongshu", "https://www.xiaohongshu.com/explore/6650a4f5000000001e0230d5?xsec_token=abc", "xiaohongshu:6650a4f5000000001e0230d5"],
    ["douyin", "https://www.douyin.com/video/7380912345678901234", "douyin:7380912345678901234"],
    ["web", "https://blog.example.com/post#comments", "url:https://blog.example.com/post"],
  ])("a %s link is keyed by its post", (platform, url, key) => {
    expect(sourceKeyOf(platform, url)).toBe(key);
  });
});
