import { afterAll, describe, expect, test } from "bun:test";
import { discoverFeedLinks, looksLikeHtmlPage } from "../../../src/modules/feeds/discover-feed";
import { NotOpmlError, readOpml, writeOpml } from "../../../src/modules/feeds/opml";
import { readFeedFixture } from "../../support/feed-fixtures";

describe("discoverFeedLinks", () => {
  test("a page's alternate feed links, in page order, against <base href>; a REST API and oEmbed are not feeds", () => {
    const html = readFeedFixture("page-with-alternate.html");
    expect(looksLikeHtmlPage(html, "")).toBe(true);
    expect(discoverFeedLinks(html, "https://blog.example.org/about/")).toEqual(["https://blog.example.org/feed/?lang=en&x=1", "https://blog.example.org/atom.xml"]);
  });

  test("a page without one has none; a feed is no page", () => {
    expect(discoverFeedLinks("<html><head><title>x</title></head><body>hi</body></html>", "https://x.example/")).toEqual([]);
    expect(looksLikeHtmlPage(readFeedFixture("wordpress.rss"), "application/rss+xml")).toBe(false);
  });
});

describe("OPML", () => {
  test("nested outlines are read; enclosing categories (and a category attribute) become tags", () => {
    expect(readOpml(readFeedFixture("subscriptions.opml"))).toEqual([
      { url: "https://blog.example.org/feed/?a=1&b=2", title: "Behavioural Notes", tags: ["Psychology"] },
      { url: "https://pod.example.fm/thinking-aloud/feed.xml", title: "Thinking Aloud", tags: ["Psychology", "Podcasts", "中文", "播客"] },
      { url: "https://mia.example.net/feed.json", title: "Microblog of Mia", tags: [] },
    ]);
  });

  test("what is written reads back the same", () => {
    const feeds = [
      { url: "https://a.example/feed?x=1&y=2", title: 'A <b> & "quotes"', siteUrl: "https://a.example/", tags: ["tech", "rust"] },
      { url: "https://b.example/rss", title: null, siteUrl: null, tags: [] },
    ];
    const document = writeOpml(feeds);
    expect(document).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">');
    expect(readOpml(document)).toEqual([
      { url: "https://a.example/feed?x=1&y=2", title: 'A <b> & "quotes"', tags: ["tech", "rust"] },
      { url: "https://b.example/rss", title: "https://b.example/rss", tags: [] },
    ]);
  });

  test("a billion laughs stays a few bytes of text: the entities are never expanded", () => {
    const started = performance.now();
    const feeds = readOpml(readFeedFixture("billion-laughs.opml"));
    expect(feeds).toEqual([{ url: "https://lol.example/feed", title: "&lol9;", tags: ["&lol9;"] }]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("external entities and DTDs are refused, and nothing is fetched", async () => {
    const requests: string[] = [];
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => (requests.push(request.url), new Response('<!ENTITY leak "leaked">')) });
    afterAll(() => server.stop(true));
    const origin = `http://127.0.0.1:${server.port}`;
    for (const name of ["external-dtd.opml", "parameter-entity.opml"]) {
      const hostile = readFeedFixture(name).replaceAll("http://127.0.0.1:9", origin);
      expect(() => readOpml(hostile)).toThrow(NotOpmlError);
    }
    const systemOnly = `<?xml version="1.0"?><!DOCTYPE opml SYSTEM "${origin}/evil.dtd"><opml version="2.0"><body><outline type="rss" text="&leak;" xmlUrl="https://x.example/feed"/></body></opml>`;
    const read = (() => {
      try {
        return readOpml(systemOnly);
      } catch (error) {
        return error;
      }
    })();
    if (Array.isArray(read)) expect(read[0].title).toBe("&leak;");
    else expect(read).toBeInstanceOf(NotOpmlError);
    await Bun.sleep(50);
    expect(requests).toEqual([]);
  });

  test("what is not OPML says so", () => {
    expect(() => readOpml("<html><body>no</body></html>")).toThrow(NotOpmlError);
    expect(() => readOpml("not xml at all")).toThrow(NotOpmlError);
  });
});
