import { describe, expect, test } from "bun:test";
import { subtitleBelongs } from "../../../../src/modules/imports/platforms/bilibili/fetch";
import { mixinKey, signWbi } from "../../../../src/modules/imports/platforms/bilibili/wbi";

describe("WBI signing", () => {
  // The example of the WBI documentation (bilibili-API-collect `docs/misc/sign/wbi.md`).
  const IMG = "7cd084941338484aae1ad9425b84077c";
  const SUB = "4932caff0ff746eab6f01bf08b70ac45";

  test("the mixin key and w_rid of the documented example", () => {
    const key = mixinKey(IMG + SUB);
    expect(key).toBe("ea1db124af3c7062474693fa704f4ff8");
    const signed = signWbi({ foo: "114", bar: "514", zab: "1919810" }, key, 1702204169);
    expect(signed).toEqual({ bar: "514", foo: "114", wts: "1702204169", zab: "1919810", w_rid: "8f6f2b5b3d485fe1886cec6a0be8c5d4" });
  });

  test("characters the player strips are removed before signing", () => {
    const key = mixinKey(IMG + SUB);
    expect(signWbi({ q: "it's (a) test!*" }, key, 1).q).toBe("its a test");
  });
});

describe("subtitles that belong to another video", () => {
  test("an AI subtitle file is named for its aid and cid; another's is refused", () => {
    expect(subtitleBelongs("//aisubtitle.hdslb.com/bfs/ai_subtitle/prod/12059384271577777777abcdef?auth_key=1", 1205938427, 1577777777)).toBe(true);
    expect(subtitleBelongs("//aisubtitle.hdslb.com/bfs/ai_subtitle/prod/99999999991577777777abcdef?auth_key=1", 1205938427, 1577777777)).toBe(false);
    expect(subtitleBelongs("https://i0.hdslb.com/bfs/subtitle/abc123.json", 1205938427, 1577777777)).toBe(true);
  });
});
