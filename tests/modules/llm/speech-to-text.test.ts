import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { createSttClient, MAX_ANSWER_BYTES, readTime, readTranscript, retryDelay, SttRequestError, VERBOSE_RETRY_MS } from "../../../src/modules/llm/speech-to-text";
import { recordingFile } from "../../support/aac-audio";
import { startFakeStt } from "../../support/fake-stt";
import { manualClock } from "../../support/manual-clock";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-stt-");
const piece = path.join(dir, "piece.m4a");
const stt = startFakeStt();
const noSleep = async () => {};

beforeAll(async () => {
  await recordingFile(piece, { seconds: 32, offsetSeconds: 100 });
});
afterAll(() => stt.stop());

const client = (extra: { apiKey?: string; language?: string } = {}) => createSttClient({ baseURL: stt.baseUrl, model: "whisper-1", ...extra }, { sleep: noSleep });

describe("the speech-to-text client", () => {
  test("uploads the piece as multipart with the model and language, and reads verbose_json segments", async () => {
    stt.state.mode = "verbose";
    const before = stt.state.uploads.length;
    const answer = await client({ language: "en" }).transcribe({ file: piece, name: "piece-1.m4a" });
    const upload = stt.state.uploads.at(-1)!;
    expect(stt.state.uploads.length).toBe(before + 1);
    expect(upload).toMatchObject({ model: "whisper-1", format: "verbose_json", language: "en", granularities: ["segment"], filename: "piece-1.m4a", start: 100 });
    expect(answer.requests).toBe(1);
    expect(answer.segments!.map((segment) => segment.text)).toEqual(["Sentence 20.", "Sentence 21.", "Sentence 22.", "Sentence 23.", "Sentence 24.", "Sentence 25.", "Sentence 26 (cut)."]);
    expect(answer.segments![1]).toEqual({ start: 5, end: 9, text: "Sentence 21." });
  });

  test("no language is sent when none is set", async () => {
    await client().transcribe({ file: piece, name: "p.m4a" });
    expect(stt.state.uploads.at(-1)!.language).toBeNull();
  });

  test("falls back to json when the server refuses verbose_json, and asks for json from then on", async () => {
    stt.state.mode = "refuse-verbose";
    const c = client();
    const first = await c.transcribe({ file: piece, name: "p.m4a" });
    expect(first.segments).toBeNull();
    expect(first.text).toStartWith("Sentence 20. Sentence 21.");
    expect(first.requests).toBe(2);
    const second = await c.transcribe({ file: piece, name: "p.m4a" });
    expect(second.requests).toBe(1);
    expect(stt.state.uploads.at(-1)!.format).toBe("json");
  });

  test("a server that refused verbose_json is asked for it again an hour later, so an upgraded one gives timestamps again", async () => {
    stt.state.mode = "refuse-verbose";
    const time = manualClock();
    const c = createSttClient({ baseURL: stt.baseUrl, model: "whisper-1" }, { sleep: noSleep, now: time.clock.now });
    expect((await c.transcribe({ file: piece, name: "p.m4a" })).requests).toBe(2);
    // The server is upgraded: within the hour the client still asks for json.
    stt.state.mode = "verbose";
    await time.advance(VERBOSE_RETRY_MS - 1);
    const untimed = await c.transcribe({ file: piece, name: "p.m4a" });
    expect(untimed.segments).toBeNull();
    expect(stt.state.uploads.at(-1)!.format).toBe("json");
    await time.advance(1);
    const timed = await c.transcribe({ file: piece, name: "p.m4a" });
    expect(stt.state.uploads.at(-1)!.format).toBe("verbose_json");
    expect(timed).toMatchObject({ requests: 1, segments: expect.arrayContaining([{ start: 5, end: 9, text: "Sentence 21." }]) });
  });

  test("an answer of 200,000 segments is read whole, each time in seconds", async () => {
    stt.state.mode = "verbose";
    const segments = Array.from({ length: 200_000 }, (_, index) => ({ start: index / 100, end: index / 100 + 0.005, text: `Word ${index}.` }));
    const body = JSON.stringify({ text: "many words", segments });
    stt.state.answer = () => body;
    try {
      const answer = await client().transcribe({ file: piece, name: "p.m4a", seconds: 2000 });
      expect(answer.segments!.length).toBe(200_000);
      const last = answer.segments!.at(-1)!;
      expect(last.text).toBe("Word 199999.");
      expect(last.start).toBeCloseTo(1999.99, 6);
      expect(last.end).toBeCloseTo(1999.995, 6);
    } finally {
      stt.state.answer = null;
    }
  });

  test.each([
    ["with its Content-Length", () => JSON.stringify({ text: "x".repeat(MAX_ANSWER_BYTES) })],
    ["streamed without end", () => new ReadableStream({ pull: (controller) => controller.enqueue(new TextEncoder().encode(" ".repeat(1024 * 1024))) })],
  ])("an answer over 16 MiB (%s) is refused as it arrives, not read whole", async (_how, answer) => {
    stt.state.mode = "verbose";
    stt.state.answer = answer;
    try {
      const error = await client().transcribe({ file: piece, name: "p.m4a" }).catch((caught) => caught);
      expect(error).toBeInstanceOf(SttRequestError);
      expect(error).toMatchObject({ transient: false, requests: 1 });
      expect(error.message).toBe("the speech-to-text server's answer is larger than 16 MiB");
    } finally {
      stt.state.answer = null;
    }
  });

  test.each(["string-times", "nanoseconds"] as const)("reads times sent as %s", async (mode) => {
    stt.state.mode = mode;
    const answer = await client().transcribe({ file: piece, name: "p.m4a", seconds: 32 });
    expect(answer.segments![1]!.start).toBeCloseTo(5, 3);
    expect(answer.segments![1]!.end).toBeCloseTo(9, 3);
  });

  test("a 429 is retried after Retry-After, and the piece is answered", async () => {
    stt.state.mode = "rate-limited-once";
    stt.state.refused = 0;
    const waits: number[] = [];
    const c = createSttClient({ baseURL: stt.baseUrl, model: "whisper-1" }, { sleep: async (ms) => void waits.push(ms) });
    stt.state.retryAfter = "3";
    const answer = await c.transcribe({ file: piece, name: "p.m4a" });
    expect(answer.requests).toBe(2);
    expect(waits).toEqual([3000]);
    expect(answer.segments!.length).toBe(7);
  });

  test("5xx four times fails for good, as transient, counting every request", async () => {
    stt.state.mode = "fail";
    const error = await client().transcribe({ file: piece, name: "p.m4a" }).catch((caught) => caught);
    expect(error).toBeInstanceOf(SttRequestError);
    expect(error.transient).toBe(true);
    expect(error.requests).toBe(4);
    expect(error.message).toContain("500");
  });

  test("a refused key is a setup error naming STT_API_KEY, not retried", async () => {
    stt.state.mode = "unauthorized";
    const error = await client({ apiKey: "sk-wrong" }).transcribe({ file: piece, name: "p.m4a" }).catch((caught) => caught);
    expect(error).toMatchObject({ setup: true, status: 401, requests: 1 });
    expect(error.message).toContain("STT_API_KEY");
  });

  test("an unreachable server is transient after its retries", async () => {
    const error = await createSttClient({ baseURL: "http://127.0.0.1:9/v1", model: "m" }, { sleep: noSleep }).transcribe({ file: piece, name: "p.m4a" }).catch((caught) => caught);
    expect(error).toMatchObject({ transient: true, requests: 4 });
  });
});

describe("reading an answer", () => {
  test("a million segments, more than a spread of arguments takes, are read", () => {
    const segments = Array.from({ length: 1_000_000 }, (_, index) => ({ start: index / 1000, end: (index + 1) / 1000, text: "a" }));
    const read = readTranscript(JSON.stringify({ text: "a", segments }), "verbose_json", 1000);
    expect(read.segments!.length).toBe(1_000_000);
    expect(read.segments!.at(-1)).toEqual({ start: 999.999, end: 1000, text: "a" });
  });
});

describe("reading times", () => {
  test.each([
    [12.5, 12.5],
    ["12.5", 12.5],
    ["00:01:02.500", 62.5],
    ["1:02", 62],
    ["1500ms", 1.5],
    ["soon", null],
    [-1, null],
    [null, null],
  ])("%p is %p seconds", (value, seconds) => {
    expect(readTime(value)).toBe(seconds);
  });

  test("Retry-After in seconds or as a date, bounded at 30 s", () => {
    expect(retryDelay("2", 1)).toBe(2000);
    expect(retryDelay("600", 1)).toBe(30_000);
    expect(retryDelay(new Date(Date.now() + 10_000).toUTCString(), 1)).toBeGreaterThan(8000);
    expect(retryDelay(null, 1)).toBe(2000);
  });
});
