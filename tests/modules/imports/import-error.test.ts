import { describe, expect, test } from "bun:test";
import { httpStatusError, PASTE_INSTEAD } from "../../../src/modules/imports/import-error";

const wechat = { site: "WeChat", item: "article" };

describe("what an HTTP status means for an import, on every platform", () => {
  test("2xx means the body is read", () => {
    for (const status of [200, 203, 299]) expect(httpStatusError(status, wechat)).toBeNull();
  });

  test("429 and 5xx are transient: retried, and the user told to try again later", () => {
    for (const status of [429, 500, 502, 503, 599]) {
      const error = httpStatusError(status, wechat)!;
      expect(error.permanent).toBe(false);
      expect(error.message).toStartWith("WeChat ");
      expect(error.message).toContain(`(HTTP ${status})`);
      expect(error.message).toContain("Try again in a few minutes");
    }
  });

  test("404 and 410 are permanent: not found, check the link", () => {
    for (const status of [404, 410]) {
      const error = httpStatusError(status, { site: "Douyin", item: "post" })!;
      expect(error.permanent).toBe(true);
      expect(error.message).toBe(
        `Douyin says this post is not found (HTTP ${status}): it was deleted, or the link is wrong. Check the link.`,
      );
    }
  });

  test("401 and 403 are permanent: a login is needed, paste instead", () => {
    for (const status of [401, 403]) {
      const error = httpStatusError(status, { site: "The site", item: "page" })!;
      expect(error.permanent).toBe(true);
      expect(error.message).toContain("needs a login for this page");
      expect(error.message).toEndWith(PASTE_INSTEAD);
    }
  });

  test("any other status is a permanent refusal, paste instead", () => {
    for (const status of [100, 304, 400, 418, 451]) {
      const error = httpStatusError(status, { site: "Xiaohongshu", item: "note" })!;
      expect(error.permanent).toBe(true);
      expect(error.message).toBe(`Xiaohongshu refused to serve this note (HTTP ${status}). ${PASTE_INSTEAD}`);
    }
  });
});
