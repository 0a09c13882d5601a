import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ALL_FORMATS, EncodedPacketSink, FilePathSource, Input } from "mediabunny";
import { openAudio, planPieces, writePiece } from "../../../src/modules/transcripts/audio-pieces";
import { TranscriptError } from "../../../src/modules/transcripts/transcript-error";
import { adtsRecording, frameTime, recordingFile } from "../../support/aac-audio";
import { writeHostileRecording } from "../../support/hostile-recording";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-pieces-");
const threeHours = path.join(dir, "three-hours.m4a");
const MIB = 1024 * 1024;

beforeAll(async () => {
  await recordingFile(threeHours, { seconds: 10_800 });
});

async function readPiece(file: string) {
  const input = new Input({ source: new FilePathSource(file), formats: ALL_FORMATS });
  try {
    const track = (await input.getPrimaryAudioTrack())!;
    const sink = new EncodedPacketSink(track);
    const first = (await sink.getFirstPacket())!;
    const last = (await sink.getPacket(Infinity))!;
    return { codec: await track.getCodec(), sampleRate: await track.getSampleRate(), duration: await input.computeDuration(), firstTimestamp: first.timestamp, from: frameTime(first.data), to: frameTime(last.data) };
  } finally {
    input.dispose();
  }
}

describe("cutting a recording into pieces", () => {
  test("3 hours in 600 s pieces is ⌈10800 / 600⌉ = 18 pieces, each from a multiple of 600 s with 5 s of overlap before it", async () => {
    const audio = await openAudio(threeHours);
    try {
      const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 24 * MIB, maxSeconds: 180 * 60, overlapSeconds: 5 });
      expect(plan.pieces.length).toBe(18);
      expect(plan.truncated).toBe(false);
      expect(plan.duration).toBeCloseTo(10_800, 0);
      for (const [index, piece] of plan.pieces.entries()) {
        expect(piece.from).toBeCloseTo(index * 600, 0);
        expect(piece.start).toBeCloseTo(Math.max(0, index * 600 - 5), 0);
        if (index > 0) expect(piece.from).toBe(plan.pieces[index - 1]!.end);
        expect(piece.bytes).toBeLessThan(24 * MIB);
      }
      expect(plan.pieces.at(-1)!.end).toBeCloseTo(10_800, 0);
    } finally {
      audio.close();
    }
  });

  test("a written piece is a valid M4A of the same AAC, starting at 0, holding exactly its stretch of the recording", async () => {
    const audio = await openAudio(threeHours);
    try {
      const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 24 * MIB, maxSeconds: 180 * 60, overlapSeconds: 5 });
      for (const index of [0, 7, 17]) {
        const piece = plan.pieces[index]!;
        const file = path.join(dir, `piece-${index}.m4a`);
        await writePiece(audio, piece, file);
        const bytes = fs.readFileSync(file);
        expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
        expect(bytes.length).toBeLessThanOrEqual(piece.bytes);
        const read = await readPiece(file);
        expect(read).toMatchObject({ codec: "aac", sampleRate: 8000, firstTimestamp: 0 });
        expect(read.from).toBeCloseTo(piece.start, 2);
        expect(read.duration).toBeCloseTo(piece.end - piece.start, 1);
        expect(read.to).toBeLessThan(piece.end);
      }
    } finally {
      audio.close();
    }
  });

  test("pieces are cut sooner where they would pass the upload cap", async () => {
    const large = path.join(dir, "large.m4a");
    // About 66 kbit/s: 10 minutes would be ~5 MB, over a 2 MiB cap.
    await recordingFile(large, { seconds: 1200, padding: 1024 });
    const audio = await openAudio(large);
    try {
      const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 2 * MIB, maxSeconds: 3600, overlapSeconds: 5 });
      expect(plan.pieces.length).toBeGreaterThan(2);
      for (const piece of plan.pieces) expect(piece.bytes).toBeLessThanOrEqual(2 * MIB);
      const last = plan.pieces.at(-1)!;
      const file = path.join(dir, "large-piece.m4a");
      await writePiece(audio, last, file);
      expect(fs.statSync(file).size).toBeLessThanOrEqual(2 * MIB);
      expect(last.end).toBeCloseTo(1200, 0);
    } finally {
      audio.close();
    }
  });

  test("a recording past STT_MAX_MINUTES is planned up to that point and says it was cut", async () => {
    const audio = await openAudio(threeHours);
    try {
      const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 24 * MIB, maxSeconds: 25 * 60, overlapSeconds: 5 });
      expect(plan.truncated).toBe(true);
      expect(plan.pieces.length).toBe(3);
      expect(plan.pieces.at(-1)!.end).toBeLessThanOrEqual(1500);
    } finally {
      audio.close();
    }
  });

  test("a fragmented MP4 (a DASH .m4s stream) is cut the same way", async () => {
    const fragmented = path.join(dir, "stream.m4s");
    await recordingFile(fragmented, { seconds: 1500, fragmented: true, sampleRate: 44100, padding: 100 });
    expect(fs.readFileSync(fragmented).includes(Buffer.from("moof"))).toBe(true);
    const audio = await openAudio(fragmented);
    try {
      const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 24 * MIB, maxSeconds: 180 * 60, overlapSeconds: 5 });
      expect(plan.pieces.length).toBe(3);
      expect(plan.duration).toBeCloseTo(1500, 0);
      const piece = plan.pieces[1]!;
      const file = path.join(dir, "stream-piece.m4a");
      await writePiece(audio, piece, file);
      const read = await readPiece(file);
      expect(read).toMatchObject({ codec: "aac", sampleRate: 44100, firstTimestamp: 0 });
      expect(read.from).toBeCloseTo(piece.start, 2);
      expect(read.duration).toBeCloseTo(piece.end - piece.start, 1);
    } finally {
      audio.close();
    }
  });

  test("a recording in another container (raw AAC in ADTS frames) is cut by mediabunny into M4A pieces", async () => {
    const raw = path.join(dir, "memo.aac");
    fs.writeFileSync(raw, adtsRecording(130));
    const audio = await openAudio(raw);
    try {
      const plan = await planPieces(audio, { chunkSeconds: 60, maxBytes: 24 * MIB, maxSeconds: 3600, overlapSeconds: 5 });
      expect(plan.pieces.length).toBe(3);
      const piece = plan.pieces[1]!;
      const file = path.join(dir, "memo-piece.m4a");
      await writePiece(audio, piece, file);
      expect(fs.readFileSync(file).subarray(4, 8).toString("latin1")).toBe("ftyp");
      const read = await readPiece(file);
      expect(read).toMatchObject({ codec: "aac", sampleRate: 8000, firstTimestamp: 0 });
      expect(read.from).toBeCloseTo(piece.start, 2);
      expect(read.duration).toBeCloseTo(piece.end - piece.start, 1);
    } finally {
      audio.close();
    }
  });

  test("an MP4 whose tables claim billions of samples is refused quickly, not looped over", async () => {
    const hostile = path.join(dir, "hostile.m4a");
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir, "piece-0.m4a")));
    // The sample count of stsz, set to 4 billion.
    const stsz = Buffer.from(bytes).indexOf("stsz");
    new DataView(bytes.buffer).setUint32(stsz + 12, 0xfffffff0);
    new DataView(bytes.buffer).setUint32(stsz + 8, 16);
    fs.writeFileSync(hostile, bytes);
    const refused = await openAudio(hostile).catch((error) => error);
    expect(refused).toBeInstanceOf(TranscriptError);
    expect(refused.message).toContain("its samples lie past the end of the file");
  });

  test("past STT_MAX_MINUTES only the packets to transcribe are held, and the recording's length is still known", async () => {
    const fragmented = path.join(dir, "long-stream.m4s");
    await recordingFile(fragmented, { seconds: 300, fragmented: true });
    for (const [file, seconds] of [[threeHours, 10_800], [fragmented, 300]] as const) {
      const audio = await openAudio(file, { keepSeconds: 60 });
      try {
        // 60 s of 8 kHz AAC is 469 packets; one more ends the last piece.
        expect(audio.times.length).toBe(Math.ceil((60 * 8000) / 1024) + 1);
        expect(audio.end).toBeCloseTo(seconds, 0);
        const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 24 * MIB, maxSeconds: 60, overlapSeconds: 5 });
        expect(plan).toMatchObject({ truncated: true, pieces: [{ start: 0, from: 0, end: 60 }] });
        expect(plan.duration).toBeCloseTo(seconds, 0);
      } finally {
        audio.close();
      }
    }
  });

  test("a recording in another container is read no further than STT_MAX_MINUTES: millions of tiny frames cost little memory", async () => {
    const tiny = path.join(dir, "tiny-frames.aac");
    await writeHostileRecording(tiny, "tiny-frames");
    // In a process of its own: in this one, other files' servers and garbage move RSS by more than the bound.
    const measured = Bun.spawnSync([process.execPath, path.join(import.meta.dir, "../../support/measure-open-audio.ts"), tiny, String(3 * 3600)]);
    expect(measured.exitCode).toBe(0);
    const { packets, end, growth } = JSON.parse(measured.stdout.toString()) as { packets: number; end: number; growth: number };
    // Every packet up to 3 hours (84,375 of 128 ms, the last exactly at 3:00:00), and the first past it.
    expect(packets).toBe(84_377);
    expect(end).toBeGreaterThan(85 * 3600);
    expect(growth).toBeLessThan(100 * MIB);
  });

  test("past STT_MAX_MINUTES a recording in another container is read no further, its length told from its size", async () => {
    const raw = path.join(dir, "long-memo.aac");
    fs.writeFileSync(raw, adtsRecording(600));
    const audio = await openAudio(raw, { keepSeconds: 60 });
    try {
      expect(audio.times.length).toBe(Math.ceil((60 * 8000) / 1024) + 1);
      // Frame headers are not packet bytes: the estimate runs long by their share, and is never short.
      expect(audio.end).toBeGreaterThan(599);
      expect(audio.end).toBeLessThan(600 * 1.8);
      const plan = await planPieces(audio, { chunkSeconds: 600, maxBytes: 24 * MIB, maxSeconds: 60, overlapSeconds: 5 });
      expect(plan).toMatchObject({ truncated: true, pieces: [{ start: 0, from: 0, end: 60 }] });
    } finally {
      audio.close();
    }
  });

  test("a file that is not a recording is a TranscriptError, not a crash", async () => {
    const junk = path.join(dir, "junk.m4a");
    fs.writeFileSync(junk, "<!doctype html><title>Access denied</title>");
    await expect(openAudio(junk)).rejects.toBeInstanceOf(TranscriptError);
  });
});
