import { describe, expect, test } from "bun:test";
import { ImportError } from "../../../../src/modules/imports/import-error";
import { followShortLink, hostMatches, parseHttpUrl } from "../../../../src/modules/imports/platforms/short-links";
import type { FetchedPage, Fetcher } from "../../../../src/modules/imports/platforms/types";

/** A fetcher that answers every request with one page, as if after its redirects. */
function answering(page: Omit<FetchedPage, "contentType">): Fetcher & { calls: string[] } {
  const calls: string[] = [];
  const fetcher = async (url: string) => {
    calls.push(url);
    return { contentType: "text/html", ...page };
  };
  return Object.assign(fetcher, { calls });
}

const request = { platform: "Bilibili", shortHosts: ["b23.tv"] };

describe("hostMatches", () => {
  test("matches a host and its subdomains, not look-alikes", () => {
    expect(hostMatches("b23.tv", ["b23.tv"])).toBe(true);
    expect(hostMatches("WWW.Bilibili.com.", ["bilibili.com"])).toBe(true);
    expect(hostMatches("evilb23.tv", ["b23.tv"])).toBe(false);
    expect(hostMatches("bilibili.com.evil.cn", ["bilibili.com"])).toBe(false);
  });
});

test("parseHttpUrl refuses other schemes and non-URLs", () => {
  expect(parseHttpUrl(" https://b23.tv/x ")?.hostname).toBe("b23.tv");
  expect(parseHttpUrl("javascript:alert(1)")).toBeUndefined();
  expect(parseHttpUrl("b23.tv/x")).toBeUndefined();
});

describe("followShortLink", () => {
  test("returns the page the redirects landed on", async () => {
    const fetcher = answering({ url: "https://www.bilibili.com/video/BV1Xb421E7Lm", status: 200, body: "<html>" });
    const page = await followShortLink("https://b23.tv/aB3xY9z", fetcher, request);
    expect(page.url).toBe("https://www.bilibili.com/video/BV1Xb421E7Lm");
    expect(fetcher.calls).toEqual(["https://b23.tv/aB3xY9z"]);
  });

  test("a link that never leaves the short host has expired: permanent", async () => {
    const fetcher = answering({ url: "https://b23.tv/gone", status: 404, body: "" });
    const error = await followShortLink("https://b23.tv/gone", fetcher, request).catch((caught) => caught);
    expect(error).toBeInstanceOf(ImportError);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("Bilibili short link did not lead to any content");
  });

  test("a short-link service error is retried: transient", async () => {
    const fetcher = answering({ url: "https://b23.tv/busy", status: 503, body: "" });
    const error = await followShortLink("https://b23.tv/busy", fetcher, request).catch((caught) => caught);
    expect(error).toBeInstanceOf(ImportError);
    expect(error.permanent).toBe(false);
  });
});
