import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { classifyAddress } from "../../../src/modules/imports/address-policy";
import { createSafeDownloader } from "../../../src/modules/imports/safe-fetch/download-file";
import type { SafeFetcherOptions } from "../../../src/modules/imports/safe-fetch/options";
import { IMAGE_RETRIES_PER_NOTE, MAX_IMAGES_PER_NOTE, storeNoteImages, type ImageStoreRun } from "../../../src/modules/imports/store-images";
import { blobPath, type FileStorage } from "../../../src/modules/files/blob-store";
import { insertUser } from "../../support/graph-seed";
import { imageBytes } from "../../support/images";
import { loopbackOnly } from "../../support/loopback-only";
import { until } from "../../support/until";
import { notesDatabaseForThisFile } from "../../support/notes-database";

// Tests only ever touch loopback; 127.0.0.2 plays "a public host" through the injected policy.
const FAKE_PUBLIC = "127.0.0.2";
const downloader = (options: Partial<SafeFetcherOptions> = {}) =>
  createSafeDownloader({ allowPrivateNetworks: true, beforeConnect: loopbackOnly, ...options });

const picture = imageBytes("png", 40_000, 11);
let seen: { path: string; referer: string | null }[] = [];

/** An image host on 127.0.0.2: each path one behaviour. */
const host = Bun.serve({
  hostname: FAKE_PUBLIC,
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    seen.push({ path: url.pathname, referer: request.headers.get("referer") });
    if (url.pathname.startsWith("/pic/")) return new Response(imageBytes("jpeg", 2000, Number(url.pathname.slice(5))), { headers: { "content-type": "image/jpeg" } });
    const asked = seen.filter((request) => request.path === url.pathname).length;
    switch (url.pathname) {
      case "/flaky.png":
        return asked <= 2 ? new Response("busy", { status: 503 }) : new Response(picture, { headers: { "content-type": "image/png" } });
      case "/down.png":
        return new Response("busy", { status: 502 });
      case "/good.png":
        return new Response(picture, { headers: { "content-type": "image/png" } });
      case "/to-private.png":
        return Response.redirect(`http://127.0.0.1:${url.port}/good.png`, 302);
      case "/slow.png":
        await Bun.sleep(2_000);
        return new Response(picture);
      case "/huge.png":
        return new Response(imageBytes("png", 10 * 1024 * 1024 + 10, 12), { headers: { "content-type": "image/png" } });
      default:
        return new Response("missing", { status: 404 });
    }
  },
});
const origin = `http://${FAKE_PUBLIC}:${host.port}`;

const database = await notesDatabaseForThisFile();
const { dir } = database;
let storage: FileStorage;
let userId: number;
let taskIds = 0;

beforeAll(async () => {
  storage = { dir: path.join(dir, "files"), maxBytesPerUser: 1024 ** 3 };
  userId = await insertUser(database.db, "pictures");
});
afterAll(() => {
  host.stop(true);
});

function run(download: ImageStoreRun["download"], extra: Partial<ImageStoreRun> = {}): ImageStoreRun {
  return { db: database.db, storage, download, userId, taskId: ++taskIds, referer: undefined, signal: new AbortController().signal, retryDelaysMs: [20, 20], ...extra };
}

describe("storeNoteImages", () => {
  test("a redirect to a private address is refused with the address rule on; the link stays remote", async () => {
    const download = downloader({ allowPrivateNetworks: false, allowedPorts: [host.port!], classifyAddress: (address) => (address === FAKE_PUBLIC ? { public: true, description: "a public address" } : classifyAddress(address)) });
    const markdown = `![a](${origin}/good.png)\n\n![b](${origin}/to-private.png)`;
    const result = await storeNoteImages(run(download), markdown);
    expect(result.fileIds).toHaveLength(1);
    expect(result.markdown).toBe(`![a](/api/files/${result.fileIds[0]})\n\n![b](${origin}/to-private.png)`);
    expect(result.failures).toEqual([{ name: `${origin}/to-private.png`, error: expect.stringMatching(/^Refused to fetch .*127\.0\.0\.1 is a loopback address; imports only reach public addresses$/) }]);
  });

  test("a host slower than the timeout is listed, and the others are stored", async () => {
    const result = await storeNoteImages(run(downloader({ timeoutMs: 300 })), `![](${origin}/slow.png) ![](${origin}/good.png)`);
    expect(result.failures).toEqual([{ name: `${origin}/slow.png`, error: `Could not fetch ${origin}/slow.png: timed out after 0.3 s` }]);
    expect(result.fileIds).toHaveLength(1);
  });

  test("a host failing transiently is asked again, twice; a 404 is not", async () => {
    seen = [];
    const result = await storeNoteImages(run(downloader()), `![](${origin}/flaky.png) ![](${origin}/down.png) ![](${origin}/gone.png)`);
    expect(result.fileIds).toHaveLength(1);
    expect(result.markdown).toStartWith(`![](/api/files/${result.fileIds[0]})`);
    expect(result.failures).toEqual([
      { name: `${origin}/down.png`, error: `Could not fetch ${origin}/down.png: the server answered 502` },
      { name: `${origin}/gone.png`, error: `Could not fetch ${origin}/gone.png: the server answered 404` },
    ]);
    const asked = (name: string) => seen.filter((request) => request.path === name).length;
    expect([asked("/flaky.png"), asked("/down.png"), asked("/gone.png")]).toEqual([3, 3, 1]);
  });

  test(`a host down for every picture costs at most ${IMAGE_RETRIES_PER_NOTE} retries a note, not two a picture`, async () => {
    seen = [];
    const urls = Array.from({ length: 10 }, (_, i) => `${origin}/down.png?${i}`);
    const result = await storeNoteImages(run(downloader()), urls.map((url) => `![](${url})`).join("\n"));
    expect(result.failures.map((failure) => failure.name)).toEqual(urls);
    expect(seen.filter((request) => request.path === "/down.png")).toHaveLength(urls.length + IMAGE_RETRIES_PER_NOTE);
  });

  // The retry waits a minute, far past this test's timeout: only the cancellation can end it in time.
  test("a cancelled import stops waiting to ask again", async () => {
    seen = [];
    const controller = new AbortController();
    const storing = storeNoteImages(run(downloader(), { signal: controller.signal, retryDelaysMs: [60_000] }), `![](${origin}/down.png)`);
    await until(() => seen.some((request) => request.path === "/down.png"), { what: "the first ask" });
    controller.abort(new Error("stopped"));
    await expect(storing).rejects.toThrow("stopped");
  }, 15_000);

  test("an oversize picture is stopped at 10 MiB, leaving no file or temporary file behind", async () => {
    const result = await storeNoteImages(run(downloader()), `![](${origin}/huge.png)`);
    expect(result.failures).toEqual([{ name: `${origin}/huge.png`, error: expect.stringContaining("larger than 10 MiB") }]);
    expect(fs.readdirSync(path.join(storage.dir, "tmp"))).toEqual([]);
  });

  test("the Referer is the platform's; the bytes stored are the host's exactly; the same picture twice is one file", async () => {
    seen = [];
    const result = await storeNoteImages(run(downloader(), { referer: "https://mp.weixin.qq.com/" }), `![x](${origin}/good.png)\n![y](${origin}/good.png?copy)`);
    expect(seen.map((request) => request.referer)).toEqual(["https://mp.weixin.qq.com/", "https://mp.weixin.qq.com/"]);
    expect(result.fileIds).toHaveLength(1);
    const [row] = await database.db.all<{ sha256: string }>(sql`select sha256 from files where id = ${result.fileIds[0]!}`);
    expect(Buffer.from(fs.readFileSync(blobPath(storage.dir, row!.sha256))).equals(Buffer.from(picture))).toBe(true);
  });

  test(`at most ${MAX_IMAGES_PER_NOTE} pictures per note; the rest keep their links and are listed`, async () => {
    const urls = Array.from({ length: MAX_IMAGES_PER_NOTE + 2 }, (_, i) => `${origin}/pic/${i + 1}`);
    const progress: number[] = [];
    const result = await storeNoteImages(run(downloader(), { onImage: (done) => void progress.push(done) }), urls.map((url) => `![](${url})`).join("\n"));
    expect(result.fileIds).toHaveLength(MAX_IMAGES_PER_NOTE);
    expect(result.failures.map((failure) => failure.name)).toEqual(urls.slice(MAX_IMAGES_PER_NOTE));
    expect(progress).toEqual(Array.from({ length: MAX_IMAGES_PER_NOTE }, (_, i) => i + 1));
  });
});
