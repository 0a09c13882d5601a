import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Api } from "../support/api";
import { imageBytes } from "../support/images";
import { readFixture as fixture } from "../support/platform-fixtures";
import { fileBytes } from "../support/read-back";
import { sha256Hex } from "../support/sha256";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";

const sha256 = sha256Hex;

// What each stand-in host serves: WeChat's CDN shows other sites a placeholder, as mmbiz.qpic.cn does.
const WECHAT_PNG = imageBytes("png", 30_000, 21);
const WECHAT_JPEG = imageBytes("jpeg", 20_000, 22);
const PLACEHOLDER = imageBytes("png", 500, 23);
const XHS = (n: number) => imageBytes("webp", 10_000 + n, 30 + n);
const WEB = imageBytes("gif", 5_000, 24);
const SHARED = imageBytes("jpeg", 6_000, 26);

const seen: { path: string; referer: string | null }[] = [];
let imageDelayMs = 0;

const host = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    seen.push({ path: url.pathname, referer: request.headers.get("referer") });
    // The two WeChat pictures arrive far apart, so a poll sees the progress between them.
    if (imageDelayMs) await Bun.sleep(url.pathname.includes("sz_mmbiz_png") ? imageDelayMs : imageDelayMs * 4);
    const image = (bytes: Uint8Array<ArrayBuffer>, type = "image/png") => new Response(bytes, { headers: { "content-type": type } });
    if (url.pathname.startsWith("/mmbiz/")) {
      if (request.headers.get("referer") !== "https://mp.weixin.qq.com/") return image(PLACEHOLDER);
      return url.pathname.includes("sz_mmbiz_png") ? image(WECHAT_PNG) : image(WECHAT_JPEG, "image/jpeg");
    }
    if (url.pathname.startsWith("/xhs/")) return image(XHS(url.pathname.includes("nd_dft") ? 2 : 1), "image/webp");
    switch (url.pathname) {
      case "/blog/pics/figure.gif":
        return image(WEB, "image/gif");
      case "/blog/pics/shared.jpg":
        return image(SHARED, "image/jpeg");
      case "/blog/pics/not-really.png":
        return new Response("<!doctype html><title>Hotlinking not allowed</title>", { headers: { "content-type": "image/png" } });
      case "/blog/pics/huge.png":
        return image(imageBytes("png", 10 * 1024 * 1024 + 1, 25));
      default:
        return new Response("gone", { status: 404 });
    }
  },
});
const origin = `http://127.0.0.1:${host.port}`;
afterAll(() => host.stop(true));
const { server, api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });

async function importPasted(client: Api, input: { platform: string; content: string; url?: string }, onPoll?: (task: any) => void) {
  const created = await client.post("/api/tasks", input);
  expect(created.status).toBe(201);
  const task = await settleTask(client, created.body.id, { onPoll });
  expect(task.status).toBe("completed");
  const note = (await client.get(`/api/notes/${task.note_id}`)).body;
  return { task, note };
}

const storedLinks = (content: string) => [...content.matchAll(/!\[[^\]]*\]\((\/api\/files\/\d+)\)/g)].map((match) => match[1]!);

describe("imports store their pictures", () => {
  test("a WeChat article's images are fetched with WeChat's Referer, stored and linked; progress moves as they arrive", async () => {
    const { api: alice } = await api.newUser("pics");
    const html = fixture("wechat/article.html").replaceAll(/https?:\/\/mmbiz\.qpic\.cn\//g, `${origin}/mmbiz/`);
    seen.length = 0;
    imageDelayMs = 250;
    const progress = new Set<number>();
    const { task, note } = await importPasted(alice, { platform: "wechat", content: html }, (polled) => progress.add(polled.progress));
    imageDelayMs = 0;
    expect(task.failures).toEqual([]);
    const links = storedLinks(note.content);
    expect(links).toHaveLength(2);
    expect(note.content).not.toContain(origin);
    expect(seen.every((request) => request.referer === "https://mp.weixin.qq.com/")).toBe(true);
    const stored = await Promise.all(links.map((link) => fileBytes(alice, link)));
    expect(stored.map(sha256).sort()).toEqual([sha256(WECHAT_PNG), sha256(WECHAT_JPEG)].sort());
    expect([...progress].some((value) => value > 60 && value < 80)).toBe(true);
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 2, bytes: WECHAT_PNG.length + WECHAT_JPEG.length });
  });

  test("a Xiaohongshu note's imageList becomes stored pictures", async () => {
    const { api: alice } = await api.newUser("pics");
    const html = fixture("xiaohongshu/note-page.html").replaceAll("http:\\u002F\\u002Fsns-webpic-qc.xhscdn.com", `http:\\u002F\\u002F127.0.0.1:${host.port}\\u002Fxhs`);
    seen.length = 0;
    const { task, note } = await importPasted(alice, { platform: "xiaohongshu", content: html });
    expect(task.failures).toEqual([]);
    const links = storedLinks(note.content);
    expect(links.length).toBeGreaterThan(0);
    expect(note.content).not.toContain("/xhs/");
    expect(seen.every((request) => request.referer === "https://www.xiaohongshu.com/")).toBe(true);
    for (const link of links) expect([sha256(XHS(1)), sha256(XHS(2))]).toContain(sha256(await fileBytes(alice, link)));
  });

  test("a web article: relative images resolved against the page; a 404, a non-image answered as image/png and an oversize one keep their links and are listed", async () => {
    const { api: alice } = await api.newUser("pics");
    const paragraphs = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} of a long enough article about storing pictures next to notes, so the reader finds it.</p>`).join("");
    const html = `<!doctype html><html><head><title>Pictures that last</title></head><body><article><h1>Pictures that last</h1>${paragraphs}
      <p><img src="pics/figure.gif" alt="A figure"></p><p><img src="/blog/pics/missing.png" alt="gone"></p>
      <p><img src="pics/not-really.png" alt="fake"></p><p><img src="pics/huge.png" alt="huge"></p>${paragraphs}</article></body></html>`;
    seen.length = 0;
    const { task, note } = await importPasted(alice, { platform: "web", content: html, url: `${origin}/blog/post.html` });
    expect(task.counts).toMatchObject({ created: 1, failed: 0 });
    const links = storedLinks(note.content);
    expect(links).toHaveLength(1);
    expect(note.content).toContain(`![A figure](${links[0]})`);
    expect(sha256(await fileBytes(alice, links[0]!))).toBe(sha256(WEB));
    expect(seen.find((request) => request.path === "/blog/pics/figure.gif")?.referer).toBe(`${origin}/blog/post.html`);
    expect(task.failures).toEqual([
      { name: `${origin}/blog/pics/missing.png`, error: `Could not fetch ${origin}/blog/pics/missing.png: the server answered 404` },
      { name: `${origin}/blog/pics/not-really.png`, error: "Not stored: the answer is not a PNG, JPEG, GIF, WebP or AVIF image" },
      { name: `${origin}/blog/pics/huge.png`, error: `Could not fetch ${origin}/blog/pics/huge.png: the picture is larger than 10 MiB` },
    ]);
    for (const failure of task.failures) expect(note.content).toContain(`](${failure.name})`);
  });

  test("purging a deleted note deletes the files only it referred to; a file another note names stays until that one goes", async () => {
    const { api: alice } = await api.newUser("pics");
    const first = await importPasted(alice, { platform: "web", content: `<article><h1>One</h1><p>Some words about a figure that is long enough to be an article body.</p><img src="${origin}/blog/pics/shared.jpg"></article>` });
    const second = await importPasted(alice, { platform: "web", content: `<article><h1>Two</h1><p>Other words about the same figure, long enough to be an article body too.</p><img src="${origin}/blog/pics/shared.jpg"></article>` });
    const [link] = storedLinks(first.note.content);
    expect(storedLinks(second.note.content)).toEqual([link!]);
    const blob = path.join(server.dataDir, "files", sha256(SHARED).slice(0, 2), sha256(SHARED));
    expect(fs.existsSync(blob)).toBe(true);

    expect((await alice.delete(`/api/notes/${first.note.id}`)).status).toBe(204);
    expect((await alice.delete(`/api/trash/${first.note.id}`)).status).toBe(204);
    expect((await alice.get(link!)).status).toBe(200);
    // In the trash, a note keeps its files; purged, it lets them go.
    expect((await alice.delete(`/api/notes/${second.note.id}`)).status).toBe(204);
    expect((await alice.get(link!)).status).toBe(200);
    expect((await alice.delete(`/api/trash/${second.note.id}`)).status).toBe(204);
    expect((await alice.get(link!)).status).toBe(404);
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 0, bytes: 0 });
    // No user keeps this picture any more, so its bytes are gone too.
    expect(fs.existsSync(blob)).toBe(false);
  });
});
