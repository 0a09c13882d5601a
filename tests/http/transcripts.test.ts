import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import * as schema from "../../src/db/schema";
import { ImportError } from "../../src/modules/imports/import-error";
import { createImporters } from "../../src/modules/imports/platforms";
import { createBilibiliImporter } from "../../src/modules/imports/platforms/bilibili";
import { createDouyinImporter } from "../../src/modules/imports/platforms/douyin";
import type { Downloader } from "../../src/modules/imports/platforms/types";
import { runImportTask } from "../../src/modules/imports/run-import";
import { reconcileImportTasks } from "../../src/modules/imports/reconcile-tasks";
import { createSttClient } from "../../src/modules/llm/speech-to-text";
import { importQueueOn } from "../../src/jobs/catalogue";
import { importJobKey, transcriptionJobKey } from "../../src/modules/imports/import-queue";
import { runTranscriptionTask, type SttLimits } from "../../src/modules/transcripts/run-transcription";
import { mixinKey, signWbi } from "../../src/modules/imports/platforms/bilibili/wbi";
import { recordingBytes } from "../support/aac-audio";
import { Api, expectError } from "../support/api";
import { unheardChanges } from "../support/changes";
import { startFakeStt } from "../support/fake-stt";
import { type HostileRecording, writeHostileRecording } from "../support/hostile-recording";
import { jobQueueForThisFile, openJobQueue } from "../support/job-queue";
import { readFixture as fixture } from "../support/platform-fixtures";
import { startPlatformServer } from "../support/platform-server";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { directoryForThisFile } from "../support/temporary-directory";
import { until } from "../support/until";

const json = (body: unknown, status = 200) => new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });

const BVID = "BV1Xb421E7Lm";
const CID = 1561234567;
const DOUYIN_ID = "7380912345678901234";
const IMG_KEY = "7cd084941338484aae1ad9425b84077c";
const SUB_KEY = "4932caff0ff746eab6f01bf08b70ac45";

const stt = startFakeStt();
let speech: Uint8Array<ArrayBuffer>;
/** The same speech as Bilibili serves its audio: a fragmented MP4 (DASH `.m4s`). */
let speechStream: Uint8Array<ArrayBuffer>;
let song: Uint8Array<ArrayBuffer>;
const cdnRequests: { url: string; referer: string | null }[] = [];
const playurlRequests: URLSearchParams[] = [];
let streamGone = false;

/** Bilibili (API, CDN) and Douyin (share page, video CDN, music CDN) on loopback. */
const platforms = startPlatformServer((url, request) => {
  const where = `${url.host}${url.pathname}`;
  if (url.host.endsWith("bilivideo.com") || url.host.endsWith("akamaized.net") || url.host.endsWith("snssdk.com") || url.host.endsWith("douyinstatic.com")) {
    cdnRequests.push({ url: url.href, referer: request.headers.get("referer") });
  }
  switch (where) {
    case "api.bilibili.com/x/web-interface/view":
      return json(fixture("bilibili/view.json"));
    case "api.bilibili.com/x/web-interface/view/detail/tag":
      return json(fixture("bilibili/tags.json"));
    case "api.bilibili.com/x/player/wbi/v2":
    case "api.bilibili.com/x/player/v2":
      return json(fixture("bilibili/player-no-subtitles.json"));
    case "api.bilibili.com/x/web-interface/nav":
      // Logged out: code -101, and the WBI keys all the same.
      return json({ code: -101, message: "账号未登录", ttl: 1, data: { isLogin: false, wbi_img: { img_url: `https://i0.hdslb.com/bfs/wbi/${IMG_KEY}.png`, sub_url: `https://i0.hdslb.com/bfs/wbi/${SUB_KEY}.png` } } });
    case "api.bilibili.com/x/player/wbi/playurl": {
      playurlRequests.push(url.searchParams);
      const params = Object.fromEntries(url.searchParams);
      const { w_rid, wts, ...rest } = params;
      // An unsigned or badly signed request gets the risk-control voucher, as Bilibili answers.
      if (!w_rid || !wts || signWbi(rest, mixinKey(IMG_KEY + SUB_KEY), Number(wts)).w_rid !== w_rid) return json({ code: 0, message: "0", data: { v_voucher: "voucher_x" } });
      return json({
        code: 0,
        message: "0",
        data: {
          timelength: 1_300_000,
          dash: {
            video: [],
            audio: [
              { id: 30280, bandwidth: 319_112, baseUrl: "https://upos-hz-mirrorakam.akamaized.net/upgcxcode/high.m4s?deadline=1", codecs: "mp4a.40.2" },
              // Its first address is a P2P cache on a port imports do not reach; the mirror is used.
              { id: 30216, bandwidth: 67_155, baseUrl: "https://xy1x2x3x4xy.mcdn.bilivideo.cn:4483/upgcxcode/low.m4s?deadline=1", backupUrl: ["https://upos-sz-mirrorcos.bilivideo.com/upgcxcode/low.m4s?deadline=1"], codecs: "mp4a.40.2" },
            ],
          },
        },
      });
    }
    case "upos-sz-mirrorcos.bilivideo.com/upgcxcode/low.m4s":
      if (streamGone) return new Response("Not Found", { status: 404 });
      // Bilibili's CDN refuses a request that does not come from its pages.
      if (!(request.headers.get("referer") ?? "").startsWith("https://www.bilibili.com/")) return new Response("Forbidden", { status: 403 });
      return new Response(speechStream, { headers: { "content-type": "video/mp4" } });
    case "upos-hz-mirrorakam.akamaized.net/upgcxcode/high.m4s":
      return new Response(song, { headers: { "content-type": "video/mp4" } });
    case `www.iesdouyin.com/share/video/${DOUYIN_ID}/`:
      return new Response(fixture("douyin/share-video.html"), { headers: { "content-type": "text/html; charset=utf-8" } });
    case "aweme.snssdk.com/aweme/v1/play/":
      return new Response(speech, { headers: { "content-type": "video/mp4" } });
    case "aweme.snssdk.com/aweme/v1/playwm/":
      return new Response("watermarked", { status: 403 });
  }
  if (url.host === "sf5-hl-ali-cdn-tos.douyinstatic.com") return new Response(song, { headers: { "content-type": "audio/mpeg" } });
  return undefined;
});

/** The media downloader, bound to the stand-ins as `platforms.fetcher` is (the guarded one is tested in safe-fetch). */
const download: Downloader = async (url, options, consume) => {
  const target = new URL(url);
  const response = await fetch(`${platforms.origin}/${target.host}${target.pathname}${target.search}`, { headers: options.headers, signal: options.signal });
  if (!response.ok) throw new ImportError(`Could not fetch ${url}: the server answered ${response.status}`, { permanent: response.status < 500 });
  return consume(response.body as unknown as AsyncIterable<Uint8Array>, { url, status: response.status, contentType: response.headers.get("content-type") ?? "" });
};

const { server, api, db } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true", STT_BASE_URL: stt.baseUrl, STT_MODEL: "whisper-1" });
/** A real queue (graphile-worker on a database of its own) whose jobs no worker takes: the test runs them. */
const idleQueue = await jobQueueForThisFile(drizzle(db, { schema }), { allowPrivateNetworks: true });
const alice = (await api.newUser("alice")).api;
const bob = (await api.newUser("bob")).api;
let limits: SttLimits;

beforeAll(async () => {
  // Speech of 1300 s (three 600 s pieces); the "song" is another stretch of the same clock, so hearing it would show.
  [speech, speechStream, song] = await Promise.all([
    recordingBytes({ seconds: 1299.5 }),
    recordingBytes({ seconds: 1299.5, fragmented: true }),
    recordingBytes({ seconds: 60, offsetSeconds: 50_000 }),
  ]);
  limits = { chunkSeconds: 600, maxBytes: 24 * 1024 * 1024, maxSeconds: 180 * 60, mediaDir: path.join(server.dataDir, "media") };
});
afterAll(async () => {
  platforms.stop();
  stt.stop();
});

const apiBase = () => `${platforms.origin}/api.bilibili.com`;
const importers = () => ({
  ...createImporters({}),
  bilibili: createBilibiliImporter({ apiBase: apiBase() }),
  douyin: createDouyinImporter({ shareBase: `${platforms.origin}/www.iesdouyin.com` }),
});

/**
 * Runs the import job, then the transcription job it queued on the real queue, as a worker would
 * (the queue's own worker is not started: this server's worker cannot reach the stand-in platforms).
 */
async function importWithTranscript(client: Api, url: string, platform: string, options: { attempt?: number; limits?: Partial<SttLimits>; content?: string } = {}) {
  const me = (await client.get("/api/auth/me")).body;
  const now = Date.now();
  const inserted = await db.execute({
    sql: "insert into import_tasks (user_id, platform, url, content, status, progress, message, created_at, updated_at) values (?, ?, ?, ?, 'pending', 0, 'Queued', ?, ?) returning id",
    args: [me.id, platform, url, options.content ?? null, now, now],
  });
  const id = Number(inserted.rows[0]!.id);
  const orm = drizzle(db, { schema });
  const common = { db: orm, fetcher: platforms.fetcher, importers: importers(), signal: new AbortController().signal, changes: unheardChanges };
  const transcriptions = { enqueue: importQueueOn(idleQueue).enqueueTranscription! };
  await runImportTask({ ...common, attempt: 1, maxAttempts: 4, transcriptions }, { taskId: id, userId: me.id });
  expect(await idleQueue.findJob(transcriptionJobKey(id))).toMatchObject({ taskName: "transcribe", attempts: 0, lockedBy: null, permanentlyFailed: false });
  expect(await idleQueue.findJob(importJobKey(id))).toBeNull();
  expect((await client.get(`/api/tasks/${id}`)).body).toMatchObject({ status: "running", note_id: null, message: "Waiting to transcribe the video's sound" });
  const messages: string[] = [];
  const transcription = { ...common, stt: createSttClient({ baseURL: stt.baseUrl, model: "whisper-1" }, { sleep: async () => {} }), limits: { ...limits, ...options.limits }, downloadMedia: download, attempt: options.attempt ?? 1, maxAttempts: 4 };
  await runTranscriptionTask(transcription, { taskId: id, userId: me.id }).catch((error) => messages.push(String(error)));
  return {
    task: (await client.get(`/api/tasks/${id}`)).body,
    errors: messages,
    id,
    /** The job's next attempt on the same task. */
    retry: async (attempt: number) => {
      await runTranscriptionTask({ ...transcription, attempt }, { taskId: id, userId: me.id });
      return (await client.get(`/api/tasks/${id}`)).body;
    },
  };
}

const sentenceTexts = (content: string) => [...content.matchAll(/Sentence \d+( \(cut\))?\./g)].map((match) => match[0]);

describe("a Bilibili video without subtitles", () => {
  test("is transcribed from its lowest-bitrate audio stream in ⌈1300 / 600⌉ pieces, each moment once, linked to its second", async () => {
    const uploadsBefore = stt.state.uploads.length;
    const { task } = await importWithTranscript(alice, `https://www.bilibili.com/video/${BVID}`, "bilibili");
    expect(task).toMatchObject({ status: "completed", progress: 100, failures: [] });
    const uploads = stt.state.uploads.slice(uploadsBefore);
    expect(uploads.length).toBe(3);
    expect(uploads.map((upload) => Math.round(upload.start))).toEqual([0, 595, 1195]);

    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.content).toContain("\n\n## Transcript\n\nspeech-to-text (whisper-1, english), machine-generated\n\n[00:00](https://www.bilibili.com/video/BV1Xb421E7Lm?p=1&t=0) Sentence 0. Sentence 1.");
    expect(note.content).not.toContain("No subtitles");
    expect(sentenceTexts(note.content)).toEqual(Array.from({ length: 260 }, (_, n) => `Sentence ${n}.`));
    // Each paragraph's time is its first sentence's: sentence n is at 5n s on the recording's clock.
    for (const match of note.content.matchAll(/\[(\d\d):(\d\d)\]\(https:\/\/www\.bilibili\.com\/video\/BV1Xb421E7Lm\?p=1&t=(\d+)\) Sentence (\d+)\./g)) {
      const seconds = Number(match[1]) * 60 + Number(match[2]);
      expect(Number(match[3])).toBe(seconds);
      expect(Number(match[4]) * 5).toBe(seconds);
    }
    expect(note.content).toEndWith(`---\n\nSource: <https://www.bilibili.com/video/${BVID}>\n`);

    // The signed playurl was asked, the low stream fetched with the Referer of Bilibili's pages; the high one never.
    expect(playurlRequests.at(-1)?.get("w_rid")).toMatch(/^[0-9a-f]{32}$/);
    expect(cdnRequests.some((seen) => seen.url.includes("high.m4s"))).toBe(false);
    expect(cdnRequests.find((seen) => seen.url.includes("low.m4s"))?.referer).toBe(`https://www.bilibili.com/video/${BVID}/`);
    // The download and the pieces are gone.
    expect(fs.existsSync(limits.mediaDir) ? fs.readdirSync(limits.mediaDir) : []).toEqual([]);

    const usage = (await alice.get("/api/auth/me")).body.usage;
    expect(usage.stt_requests).toBe(3);
    expect(usage.transcribed_seconds).toBeGreaterThanOrEqual(1299);
    expect(usage.transcribed_seconds).toBeLessThanOrEqual(1301);
  });

  test("imported again, by another user, it costs nothing: the transcript is kept by media", async () => {
    const uploadsBefore = stt.state.uploads.length;
    const cdnBefore = cdnRequests.length;
    const { task } = await importWithTranscript(bob, `https://www.bilibili.com/video/${BVID}/?p=1`, "bilibili");
    expect(task.status).toBe("completed");
    expect(stt.state.uploads.length).toBe(uploadsBefore);
    expect(cdnRequests.length).toBe(cdnBefore);
    const note = (await bob.get(`/api/notes/${task.note_id}`)).body;
    expect(sentenceTexts(note.content).length).toBe(260);
    expect((await bob.get("/api/auth/me")).body.usage).toMatchObject({ transcribed_seconds: 0, stt_requests: 0 });
    // Alice's task and note stay hers.
    const alices = (await alice.get("/api/tasks")).body.items[0];
    expectError(await bob.get(`/api/tasks/${alices.id}`), 404, "NOT_FOUND");
    expectError(await bob.get(`/api/notes/${alices.note_id}`), 404, "NOT_FOUND");
  });
});

describe("a Douyin video", () => {
  test("is transcribed from its own play_addr (without the watermark), never the music track", async () => {
    const cdnBefore = cdnRequests.length;
    const { task } = await importWithTranscript(alice, `https://www.douyin.com/video/${DOUYIN_ID}`, "douyin");
    expect(task.status).toBe("completed");
    const fetched = cdnRequests.slice(cdnBefore).map((seen) => new URL(seen.url).host + new URL(seen.url).pathname);
    expect(fetched).toEqual(["aweme.snssdk.com/aweme/v1/play/"]);
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.content).toContain("## Transcript\n\nspeech-to-text (whisper-1, english), machine-generated\n\n[00:00] Sentence 0.");
    expect(note.content).not.toContain("Sentence 10000");
    expect(sentenceTexts(note.content).length).toBe(260);
  });
});

describe("a video named by pasted content", () => {
  test("is transcribed for its user alone: no one can plant the transcript another user's import gets", async () => {
    await db.execute({ sql: "delete from transcripts where media_key = ?", args: [`douyin:${DOUYIN_ID}`] });
    const mallory = (await new Api(server.url).newUser("mallory")).api;
    const victim = (await new Api(server.url).newUser("victim")).api;
    // Douyin's share page of the video, its play_addr pointing at audio of Mallory's choosing.
    const planted = fixture("douyin/share-video.html").replace(
      /https:\\u002F\\u002Faweme\.snssdk\.com\\u002Faweme\\u002Fv1\\u002Fplaywm\\u002F\?video_id=[^"]+/g,
      "https:\\u002F\\u002Fsf5-hl-ali-cdn-tos.douyinstatic.com\\u002Fplanted.mp4",
    );
    expect(planted).toContain("planted.mp4");
    const videoUrl = `https://www.douyin.com/video/${DOUYIN_ID}`;
    const uploadsBefore = stt.state.uploads.length;
    const pasted = await importWithTranscript(mallory, videoUrl, "douyin", { content: planted });
    expect(pasted.task.status).toBe("completed");
    expect((await mallory.get(`/api/notes/${pasted.task.note_id}`)).body.content).toContain("Sentence 10000.");
    expect(stt.state.uploads.length).toBe(uploadsBefore + 1);

    // The victim imports the video through Douyin: its own sound is transcribed, not Mallory's.
    const genuine = await importWithTranscript(victim, videoUrl, "douyin");
    expect(genuine.task.status).toBe("completed");
    const note = (await victim.get(`/api/notes/${genuine.task.note_id}`)).body;
    expect(note.content).toContain("[00:00] Sentence 0.");
    expect(note.content).not.toContain("Sentence 10000");
    // Its 1300 s are three pieces, sent to the server again.
    expect(stt.state.uploads.length).toBe(uploadsBefore + 1 + 3);

    // Mallory's own import of the same content again reuses Mallory's transcript.
    const again = await importWithTranscript(mallory, videoUrl, "douyin", { content: planted });
    expect((await mallory.get(`/api/notes/${again.task.note_id}`)).body.content).toContain("Sentence 10000.");
    expect(stt.state.uploads.length).toBe(uploadsBefore + 1 + 3);
  });
});

describe("when transcription fails", () => {
  test("a server that keeps failing leaves the note imported, the reason in the note and in failures", async () => {
    await db.execute({ sql: "delete from transcripts where media_key = ?", args: [`douyin:${DOUYIN_ID}`] });
    stt.state.mode = "fail";
    try {
      const first = await importWithTranscript(bob, `https://www.douyin.com/video/${DOUYIN_ID}`, "douyin");
      // Not the last attempt: the job is retried, the task still running and saying why.
      expect(first.errors.length).toBe(1);
      expect(first.task.status).toBe("running");
      expect(first.task.message).toContain("Temporary problem while transcribing (attempt 1 of 4)");
      // The download is kept for the retry, which does not fetch it again.
      expect(fs.readdirSync(limits.mediaDir)).toEqual([`task-${first.id}.media`]);
      const cdnBefore = cdnRequests.length;
      const last = await first.retry(4);
      expect(cdnRequests.length).toBe(cdnBefore);
      expect(last).toMatchObject({ status: "completed", error: null });
      expect(last.failures).toEqual([{ name: "transcript", error: expect.stringContaining("the speech-to-text server answered 500") }]);
      expect(fs.readdirSync(limits.mediaDir)).toEqual([]);
      const note = (await bob.get(`/api/notes/${last.note_id}`)).body;
      expect(note.content).toContain("## Transcript\n\n_No transcript: the speech-to-text server answered 500");
      expect(note.content).toContain("- Author: 山城小胖哥");
      // Every failed request is counted.
      expect((await bob.get("/api/auth/me")).body.usage.stt_requests).toBe(8);
    } finally {
      stt.state.mode = "verbose";
    }
  });

  test("a refused key fails the transcript at once, naming STT_API_KEY", async () => {
    await db.execute({ sql: "delete from transcripts where media_key = ?", args: [`douyin:${DOUYIN_ID}`] });
    stt.state.mode = "unauthorized";
    try {
      const { task } = await importWithTranscript(alice, `https://www.douyin.com/video/${DOUYIN_ID}`, "douyin");
      expect(task.status).toBe("completed");
      expect(task.failures[0].error).toContain("STT_API_KEY");
    } finally {
      stt.state.mode = "verbose";
    }
  });

  test("a stream the CDN no longer has leaves the note without a transcript, saying so", async () => {
    await db.execute({ sql: "delete from transcripts where media_key = ?", args: [`bilibili:${BVID}:1`] });
    streamGone = true;
    try {
      const { task } = await importWithTranscript(alice, `https://www.bilibili.com/video/${BVID}`, "bilibili");
      expect(task.status).toBe("completed");
      expect(task.failures).toEqual([{ name: "transcript", error: expect.stringContaining("the server answered 404") }]);
      const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
      expect(note.content).toContain("## Transcript\n\n_No transcript: Could not fetch https://upos-sz-mirrorcos.bilivideo.com/");
    } finally {
      streamGone = false;
    }
  });
});

describe("limits and bookkeeping", () => {
  test("media past STT_MAX_MINUTES is transcribed up to that point, and the note says so", async () => {
    await db.execute({ sql: "delete from transcripts where media_key = ?", args: [`douyin:${DOUYIN_ID}`] });
    const before = stt.state.uploads.length;
    const { task } = await importWithTranscript(alice, `https://www.douyin.com/video/${DOUYIN_ID}`, "douyin", { limits: { maxSeconds: 10 * 60 } });
    expect(task.status).toBe("completed");
    expect(stt.state.uploads.length).toBe(before + 1);
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    // The last words are cut where the limit falls, as a recording stopped there would be.
    expect(sentenceTexts(note.content)).toEqual([...Array.from({ length: 120 }, (_, n) => `Sentence ${n}.`), "Sentence 120 (cut)."]);
    expect(note.content).toContain("_Transcribed up to 10:00 of 21:39: the server transcribes at most 10 minutes of a recording (STT_MAX_MINUTES)._");
    await db.execute({ sql: "delete from transcripts where media_key = ?", args: [`douyin:${DOUYIN_ID}`] });
  });

  test("the reconciler queues a lost transcription job again on the server's queue, not the import, and the recording is transcribed", async () => {
    const me = (await alice.get("/api/auth/me")).body;
    // A recording's task whose transcription job was lost ten minutes ago, its upload still waiting.
    const upload = "upload-lost-job.media";
    fs.mkdirSync(limits.mediaDir, { recursive: true });
    fs.writeFileSync(path.join(limits.mediaDir, upload), await recordingBytes({ seconds: 12 }));
    const old = Date.now() - 10 * 60_000;
    const pending = JSON.stringify({ document: { title: "Lost job", markdown: "", tags: [], media: { key: `audio:${me.id}:lost-job`, source: { upload } } } });
    const inserted = await db.execute({
      sql: "insert into import_tasks (user_id, platform, status, progress, message, transcription, created_at, updated_at) values (?, 'audio', 'running', 70, 'Transcribing piece 1 of 1', ?, ?, ?) returning id",
      args: [me.id, pending, old, old],
    });
    const id = Number(inserted.rows[0]!.id);
    // The stand-in holds what it is sent, so the server's worker stays on the job while the queue is read.
    let answer = () => {};
    stt.state.gate = new Promise((resolve) => (answer = resolve));
    stt.state.holdAfter = stt.state.uploads.length;
    const queue = openJobQueue(drizzle(db, { schema }), server.databaseUrl, { allowPrivateNetworks: true });
    try {
      const result = await reconcileImportTasks(drizzle(db, { schema }), importQueueOn(queue), unheardChanges);
      expect(result.requeued).toBeGreaterThanOrEqual(1);
      expect(await queue.findJob(importJobKey(id))).toBeNull();
      expect(await queue.findJob(transcriptionJobKey(id))).toMatchObject({ taskName: "transcribe", permanentlyFailed: false });
    } finally {
      answer();
      stt.state.holdAfter = Infinity;
      await queue.close();
    }
    const task = await settleTask(alice, id);
    expect(task).toMatchObject({ status: "completed", failures: [] });
    expect((await alice.get(`/api/notes/${task.note_id}`)).body.content).toStartWith("## Transcript\n\nspeech-to-text (whisper-1, english), machine-generated\n\n[00:00] Sentence 0.");
    expect(fs.existsSync(path.join(limits.mediaDir, upload))).toBe(false);
  });
});

describe("POST /api/tasks/audio", () => {
  test("a recording becomes a note that is its transcript, titled as asked; the same recording again costs nothing", async () => {
    const recording = await recordingBytes({ seconds: 47 });
    const uploadsBefore = stt.state.uploads.length;
    const created = await alice.request("POST", "/api/tasks/audio?title=Monday%20lecture", { body: recording, headers: { "content-type": "audio/mp4" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform: "audio", url: null, status: "pending", note_id: null });
    const progress: string[] = [];
    const task = await settleTask(alice, created.body.id, { onPoll: (seen) => progress.push(seen.message) });
    expect(task).toMatchObject({ status: "completed", failures: [] });
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.title).toBe("Monday lecture");
    expect(note.tags).toEqual(["audio"]);
    expect(note.content).toStartWith("## Transcript\n\nspeech-to-text (whisper-1, english), machine-generated\n\n[00:00] Sentence 0. Sentence 1.");
    expect(sentenceTexts(note.content).length).toBe(10);
    expect(stt.state.uploads.length).toBe(uploadsBefore + 1);

    const again = await alice.request("POST", "/api/tasks/audio", { body: recording, headers: { "content-type": "audio/mp4" } });
    const second = await settleTask(alice, again.body.id);
    expect(second.status).toBe("completed");
    expect((await alice.get(`/api/notes/${second.note_id}`)).body.title).toStartWith("Recording of ");
    expect(stt.state.uploads.length).toBe(uploadsBefore + 1);

    expectError(await bob.get(`/api/tasks/${created.body.id}`), 404, "NOT_FOUND");
    expectError(await bob.get(`/api/notes/${task.note_id}`), 404, "NOT_FOUND");
    expect(fs.readdirSync(limits.mediaDir)).toEqual([]);
  });

  test("a file that is not a recording fails the task with the reason", async () => {
    const created = await alice.request("POST", "/api/tasks/audio", { body: "<html>not sound</html>", headers: { "content-type": "audio/mpeg" } });
    expect(created.status).toBe(201);
    const task = await settleTask(alice, created.body.id);
    expect(task.status).toBe("failed");
    expect(task.error).toContain("The recording could not be transcribed");
  });

  test("bad requests get the contract's errors", async () => {
    expectError(await alice.request("POST", "/api/tasks/audio", { body: "x", headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await alice.request("POST", "/api/tasks/audio", { body: new Uint8Array(0), headers: { "content-type": "audio/mp4" } }), 400, "BAD_REQUEST");
    expectError(await alice.request("POST", `/api/tasks/audio?title=${"x".repeat(501)}`, { body: "x", headers: { "content-type": "audio/mp4" } }), 400, "BAD_REQUEST");
    expectError(await new Api(server.url).request("POST", "/api/tasks/audio", { body: "x", headers: { "content-type": "audio/mp4" } }), 401, "UNAUTHORIZED");
    expectError(await alice.request("GET", "/api/tasks/audio"), 405, "METHOD_NOT_SUPPORTED");
  });

  test("a recording over 256 MiB is refused with 413 while it streams in, and nothing of it is kept", async () => {
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 257) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const tasksBefore = (await alice.get("/api/tasks")).body.total;
    const response = await fetch(`${server.url}/api/tasks/audio`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "audio/mp4" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await response.json()).code).toBe("PAYLOAD_TOO_LARGE");
    expect((await alice.get("/api/tasks")).body.total).toBe(tasksBefore);
    expect(fs.readdirSync(limits.mediaDir)).toEqual([]);
  });

  test("the same recording uploaded by another user is transcribed for them (kept per user)", async () => {
    const recording = await recordingBytes({ seconds: 12 });
    const hash = createHash("sha256").update(recording).digest("hex");
    const before = stt.state.uploads.length;
    for (const client of [alice, bob]) {
      const created = await client.request("POST", "/api/tasks/audio", { body: recording, headers: { "content-type": "audio/mp4" } });
      expect((await settleTask(client, created.body.id)).status).toBe("completed");
    }
    expect(stt.state.uploads.length).toBe(before + 2);
    const kept = await db.execute({ sql: "select count(*) as n from transcripts where media_key like ?", args: [`audio:%:${hash}`] });
    expect(Number(kept.rows[0]!.n)).toBe(2);
  });
});

describe("a hostile recording", () => {
  const MIB = 1024 * 1024;
  const dir = directoryForThisFile("rhizome-hostile-");

  test.each([
    ["many-boxes", "two million 8-byte moof boxes", "it has more than 200000 boxes"],
    ["lying-counts", "a trun claiming four billion samples", "more than 1000000 sound packets"],
    ["oversized-box", "a moov box larger than its file", "a moov box is larger than the file"],
  ] as [HostileRecording, string, string][])("(%s: %s) fails its task within 20 s, memory grows under 100 MiB, other requests are answered", async (kind, _what, reason) => {
    const file = path.join(dir, `${kind}.media`);
    await writeHostileRecording(file, kind);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const began = Date.now();
    const answeredMs: number[] = [];
    try {
      const created = await alice.request("POST", "/api/tasks/audio", { body: Bun.file(file), headers: { "content-type": "audio/mp4" } });
      expect(created.status).toBe(201);
      const task = await until(
        async () => {
          // Meanwhile the service answers as usual.
          const asked = performance.now();
          expect((await alice.get("/api/notes?size=1")).status).toBe(200);
          answeredMs.push(performance.now() - asked);
          return (await alice.get(`/api/tasks/${created.body.id}`)).body;
        },
        { timeoutMs: 20_000 - (Date.now() - began), intervalMs: 50, what: `the ${kind} recording's task to fail`, done: (seen) => seen.status === "failed" || seen.status === "completed" },
      );
      expect(task.status).toBe("failed");
      expect(task.error).toStartWith("The recording could not be transcribed: ");
      expect(task.error).toContain(reason);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(peak - baseline).toBeLessThan(100 * MIB);
    expect(answeredMs.length).toBeGreaterThan(0);
    expect(Math.max(...answeredMs)).toBeLessThan(5_000);
    // Nothing of the upload is left behind.
    await until(() => fs.readdirSync(limits.mediaDir).length === 0, { what: "the upload to be deleted" });
  });
});
