import { describe, expect, test } from "bun:test";
import { NotAFeedError, parseFeedDocument } from "../../../src/modules/feeds/parse-feed";
import { readFeedFixture } from "../../support/feed-fixtures";

// Feeds shaped like the real ones of their kind (WordPress, a Netscape-era RSS 0.91, an RDF site,
// GitHub and YouTube Atom, Mastodon, a podcast, JSON Feed 1.0 and 1.1, RSSHub) read into one shape.

describe("parseFeedDocument", () => {
  test("RSS 2.0 (WordPress): content:encoded is the full text; guid is the id; the channel link is the site", () => {
    const feed = parseFeedDocument(readFeedFixture("wordpress.rss"), "https://blog.example.org/feed/");
    expect(feed).toMatchObject({ kind: "rss", title: "Behavioural Notes", siteUrl: "https://blog.example.org/" });
    expect(feed.entries).toHaveLength(2);
    const [first] = feed.entries;
    expect(first).toMatchObject({
      id: "https://blog.example.org/?p=1042",
      title: "Loss aversion, revisited",
      url: "https://blog.example.org/2026/11/03/loss-aversion-revisited/",
      publishedAt: "2026-11-03T09:12:44.000Z",
      author: "Jane Doe",
      categories: ["Psychology", "Economics"],
      enclosure: null,
    });
    expect(first!.html).toContain("Kahneman and Tversky&#8217;s prospect theory");
    expect(first!.summary).toContain("Loss aversion is the tendency");
  });

  test("RSS 0.91 with the Netscape DOCTYPE: read without loading its DTD; no guid → the link is the id", () => {
    const feed = parseFeedDocument(readFeedFixture("rss091.xml"), "http://oldschool.example.com/rss.xml");
    expect(feed.kind).toBe("rss");
    expect(feed.entries.map((entry) => entry.title)).toEqual(["Café opens on Main St & 5th", "Library hours change"]);
    expect(feed.entries[0]!.id).toBe("http://oldschool.example.com/2026/cafe.html");
    expect(feed.entries[0]!.publishedAt).toBeNull();
  });

  test("RSS 1.0 (RDF) is an rss feed; dc:date and dc:creator are read", () => {
    const feed = parseFeedDocument(readFeedFixture("slashdot.rdf"), "https://news.example.net/rss");
    expect(feed).toMatchObject({ kind: "rss", title: "Nerd News", siteUrl: "https://news.example.net/" });
    expect(feed.entries[0]).toMatchObject({ title: "New RISC-V board ships", publishedAt: "2026-11-02T20:40:00.000Z", author: "msmash" });
  });

  test("Atom with summaries only: relative links resolve against xml:base; the summary is no full text", () => {
    const feed = parseFeedDocument(readFeedFixture("summary-only.atom"), "https://essays.example.com/atom.xml");
    expect(feed).toMatchObject({ kind: "atom", title: "Slow Essays", siteUrl: "https://essays.example.com/" });
    expect(feed.entries[0]).toMatchObject({
      id: "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a",
      url: "https://essays.example.com/2026/on-walking",
      html: null,
      summary: "Why a long walk is the best editor.",
      author: "Li Wei",
    });
    // An html-typed title loses its markup and keeps its characters.
    expect(feed.entries[1]).toMatchObject({ title: "Tea & time", publishedAt: "2026-10-20T00:30:00.000Z" });
  });

  test("Atom content of type html is the full text; YouTube's entries carry their watch link", () => {
    const releases = parseFeedDocument(readFeedFixture("github-releases.atom"), "https://github.com/example/tool/releases.atom");
    expect(releases.entries[0]!.html).toContain("<h2>Changes</h2>");
    expect(releases.siteUrl).toBe("https://github.com/example/tool/releases");
    const youtube = parseFeedDocument(readFeedFixture("youtube.atom"), "https://www.youtube.com/feeds/videos.xml?channel_id=UCabc");
    expect(youtube.entries[0]).toMatchObject({ id: "yt:video:dQw4w9WgXcQ", url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", title: "Why primes matter" });
  });

  test("a podcast's audio enclosure is kept; Mastodon's untitled posts keep their link and text", () => {
    const podcast = parseFeedDocument(readFeedFixture("podcast.rss"), "https://pod.example.fm/thinking-aloud/feed.xml");
    expect(podcast.entries[0]).toMatchObject({ id: "pod-ep-12-7f3a", title: "第 12 期：损失厌恶", enclosure: { url: "https://media.pod.example.fm/ta/ep12.m4a", type: "audio/x-m4a" } });
    const mastodon = parseFeedDocument(readFeedFixture("mastodon.rss"), "https://social.example/@ada.rss");
    expect(mastodon.entries[0]).toMatchObject({ title: null, url: "https://social.example/@ada/113456789", categories: ["decisions"] });
    expect(mastodon.entries[0]!.summary).toContain("Reading about");
  });

  test("JSON Feed 1.1 and 1.0: content_html, content_text and summary; home_page_url is the site", () => {
    const feed = parseFeedDocument(readFeedFixture("jsonfeed.json"), "https://mia.example.net/feed.json");
    expect(feed).toMatchObject({ kind: "json", title: "Microblog of Mia", siteUrl: "https://mia.example.net/" });
    expect(feed.entries[0]).toMatchObject({ title: "Hello, JSON Feed", html: "<p>This is a JSON Feed item.</p>", publishedAt: "2026-11-02T07:00:00.000Z", categories: ["meta"], author: "Mia" });
    expect(feed.entries[1]).toMatchObject({ id: "2", title: null, text: "A short note without a title." });
    const old = parseFeedDocument(readFeedFixture("jsonfeed-1.0.json"), "https://old.example.org/feed.json");
    expect(old.entries[0]).toMatchObject({ id: "a1", summary: "Summary only", html: null });
  });

  test("HTML entities and raw ampersands that real feeds carry are read, not refused", () => {
    const feed = parseFeedDocument(readFeedFixture("html-entities.rss"), "https://sloppy.example.com/rss");
    expect(feed.entries[0]).toMatchObject({ title: "Café culture — a review", url: "https://sloppy.example.com/cafe?id=1&ref=rss", publishedAt: "2026-10-31T14:00:00.000Z" });
  });

  test("RSSHub's Chinese feed of a Bilibili space keeps the video links", () => {
    const feed = parseFeedDocument(readFeedFixture("rsshub-bilibili.rss"), "https://rsshub.example/bilibili/user/video/2267573");
    expect(feed.title).toBe("某UP主 的 bilibili 空间");
    expect(feed.entries[0]!.url).toBe("https://www.bilibili.com/video/BV1xx411c7mD");
  });

  test("an item with neither id nor link is known by a hash of its title and date, the same each time", () => {
    const xml = `<rss version="2.0"><channel><title>t</title><item><title>Only a title</title><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>`;
    const first = parseFeedDocument(xml, "https://x.example/rss").entries[0]!.id;
    expect(first).toMatch(/^hash:[0-9a-f]{32}$/);
    expect(parseFeedDocument(xml, "https://x.example/rss").entries[0]!.id).toBe(first);
  });

  test("a permalink guid is the item's page only when it is a whole URL", () => {
    const xml = `<rss version="2.0"><channel><title>t</title><item><title>a</title><guid>42</guid></item><item><title>b</title><guid>https://x.example/b</guid></item></channel></rss>`;
    const [first, second] = parseFeedDocument(xml, "https://x.example/rss").entries;
    expect(first).toMatchObject({ id: "42", url: null });
    expect(second).toMatchObject({ id: "https://x.example/b", url: "https://x.example/b" });
  });

  test("malformed XML, HTML and JSON that is no feed are not feeds", () => {
    expect(() => parseFeedDocument(readFeedFixture("malformed.xml"), "https://x.example/rss")).toThrow(NotAFeedError);
    expect(() => parseFeedDocument(readFeedFixture("page-with-alternate.html"), "https://x.example/")).toThrow(NotAFeedError);
    expect(() => parseFeedDocument('{"hello": "world"}', "https://x.example/feed.json")).toThrow(NotAFeedError);
  });

  test("a billion laughs is read as the text it is, never expanded; external entities are refused", () => {
    const started = performance.now();
    const feed = parseFeedDocument(readFeedFixture("billion-laughs.xml"), "https://lol.example/rss");
    expect(feed.title).toBe("&lol9;");
    expect(feed.entries[0]!.title).toBe("&lol9;");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(() => parseFeedDocument(readFeedFixture("external-dtd.xml"), "https://xxe.example/rss")).toThrow(NotAFeedError);
  });
});
