import { describe, expect, test } from "bun:test";
import { mergePieces, type PieceTranscript } from "../../../src/modules/transcripts/merge-pieces";
import { clockTime, paragraphs, renderTranscript } from "../../../src/modules/transcripts/render-transcript";
import { sentences } from "../../support/fake-stt";

/** What the stand-in server answers for a piece, moved onto the recording's clock as the job does. */
function piece(start: number, from: number, end: number): PieceTranscript {
  const segments = sentences(start, end - start).map((segment) => ({ start: segment.start + start, end: segment.end + start, text: segment.text }));
  return { start, from, end, segments, text: segments.map((segment) => segment.text).join(" ") };
}

describe("joining pieces", () => {
  test("overlapping pieces give each sentence once, whole, at its own time", () => {
    // Boundaries at 600 s (mid-pause) and 1202 s (mid-sentence 240), each piece starting 5 s early.
    const merged = mergePieces([piece(0, 0, 600.2), piece(595.1, 600.2, 1202), piece(1197, 1202, 1500)]);
    const texts = merged.map((segment) => segment.text);
    expect(texts.filter((text) => text.includes("cut"))).toEqual([]);
    expect(texts).toEqual(Array.from({ length: 300 }, (_, n) => `Sentence ${n}.`));
    for (const [n, segment] of merged.entries()) expect(segment.start).toBeCloseTo(n * 5, 6);
  });

  test("an untimed piece becomes one block", () => {
    const merged = mergePieces([{ start: 0, from: 0, end: 600, segments: null, text: "All of it." }]);
    expect(merged).toEqual([{ start: 0, end: 600, text: "All of it." }]);
  });
});

describe("the Transcript section", () => {
  test("paragraphs hold about a minute at most, and a pause over 2 s always starts one", () => {
    const steady = Array.from({ length: 30 }, (_, n) => ({ start: n * 5, end: n * 5 + 4.5, text: `s${n}` }));
    const groups = paragraphs(steady);
    for (const group of groups) expect(group.at(-1)!.end - group[0]!.start).toBeLessThanOrEqual(60);
    expect(groups.flat().length).toBe(30);
    const paused = paragraphs([
      { start: 0, end: 1, text: "a" },
      { start: 3.5, end: 4, text: "b" },
      { start: 5, end: 6, text: "c" },
    ]);
    expect(paused.map((group) => group.map((segment) => segment.text).join(""))).toEqual(["a", "bc"]);
  });

  test("times are [mm:ss], [h:mm:ss] from an hour on, and link to the moment when asked", () => {
    expect(clockTime(83)).toBe("01:23");
    expect(clockTime(3725.9)).toBe("1:02:05");
    const section = renderTranscript({
      source: "subtitles (zh-CN)",
      segments: [
        { start: 83.4, end: 85, text: "大家好，" },
        { start: 85.5, end: 86, text: "今天" },
        { start: 86.5, end: 87, text: "天气很好" },
        { start: 3725, end: 3726, text: "再见" },
      ],
      linkAt: (seconds) => `https://www.bilibili.com/video/BV1Xb421E7Lm?p=1&t=${seconds}`,
    });
    expect(section).toBe(
      [
        "## Transcript",
        "subtitles (zh-CN)",
        "[01:23](https://www.bilibili.com/video/BV1Xb421E7Lm?p=1&t=83) 大家好，今天 天气很好",
        "[1:02:05](https://www.bilibili.com/video/BV1Xb421E7Lm?p=1&t=3725) 再见",
      ].join("\n\n"),
    );
  });
});
