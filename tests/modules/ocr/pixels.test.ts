import { describe, expect, test } from "bun:test";
import { decodeCtc } from "../../../src/modules/ocr/ctc-decode";
import { fitWithin, MAX_PICTURE_PIXELS, parts } from "../../../src/modules/ocr/engine";
import { cropPixels, resizePixels, rotateCounterClockwise, type Pixels } from "../../../src/modules/ocr/pixels";
import { readingOrder, textBoxes } from "../../../src/modules/ocr/text-boxes";

const grey = (width: number, height: number, value: (x: number, y: number) => number): Pixels => {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.fill(value(x, y), (y * width + x) * 4, (y * width + x) * 4 + 3), (data[(y * width + x) * 4 + 3] = 255);
  return { data, width, height };
};

describe("pixels", () => {
  test("a picture past 4 million pixels is shrunk to them, its shape kept; a smaller one is left as it is", () => {
    const big = fitWithin(grey(4000, 3000, () => 200), MAX_PICTURE_PIXELS);
    expect(big.width * big.height).toBeLessThanOrEqual(MAX_PICTURE_PIXELS);
    expect(big.width * big.height).toBeGreaterThan(MAX_PICTURE_PIXELS * 0.99);
    expect(big.width / big.height).toBeCloseTo(4 / 3, 2);
    const small = grey(1080, 1440, () => 255);
    expect(fitWithin(small, MAX_PICTURE_PIXELS)).toBe(small);
  });

  test("shrinking averages what each pixel covers (a one-pixel stripe pattern becomes grey, not black or white)", () => {
    const stripes = resizePixels(grey(100, 10, (x) => (x % 2 ? 255 : 0)), 50, 5);
    expect(new Set([...stripes.data].filter((_, i) => i % 4 === 0))).toEqual(new Set([128]));
  });

  test("crop and a quarter turn keep the pixels where they belong", () => {
    const picture = grey(4, 2, (x, y) => y * 4 + x);
    expect([...cropPixels(picture, { left: 1, top: 1, width: 2, height: 1 }).data].filter((_, i) => i % 4 === 0)).toEqual([5, 6]);
    const turned = rotateCounterClockwise(picture);
    expect([turned.width, turned.height]).toEqual([2, 4]);
    // The top row read right to left becomes the first column read top to bottom.
    expect([...turned.data].filter((_, i) => i % 4 === 0)).toEqual([3, 7, 2, 6, 1, 5, 0, 4]);
  });

  test("a tall picture is looked at in overlapping parts that share out every row once", () => {
    const all = parts({ width: 600, height: 3000 });
    expect(all.length).toBeGreaterThan(3);
    let covered = 0;
    for (const part of all) {
      expect(part.owns[0]).toBe(covered - part.area.top);
      covered = part.area.top + part.owns[1];
    }
    expect(covered).toBe(3000);
    expect(parts({ width: 1080, height: 1440 })).toHaveLength(1);
  });
});

describe("detection and recognition output", () => {
  test("each region of likely text becomes one box, grown by the unclip distance; faint or tiny ones are dropped", () => {
    const width = 40;
    const map = new Float32Array(width * 20);
    for (let y = 5; y < 10; y++) for (let x = 5; x < 25; x++) map[y * width + x] = 0.9;
    for (let y = 14; y < 18; y++) for (let x = 30; x < 38; x++) map[y * width + x] = 0.4; // likely but faint: mean < 0.6
    map[1 * width + 35] = 0.95; // a speck
    const boxes = textBoxes(map, width, 20);
    expect(boxes).toHaveLength(1);
    const grow = (20 * 5 * 1.5) / (2 * 25);
    expect(boxes[0]!.left).toBeCloseTo(5 - grow);
    expect(boxes[0]!.width).toBeCloseTo(20 + 2 * grow);
  });

  test("lines are read top to bottom, left to right; pieces of one row join (no space between Chinese)", () => {
    const line = (text: string, left: number, top: number) => ({ text, score: 0.9, box: { left, top, width: 50, height: 20 } });
    expect(readingOrder([line("world", 70, 12), line("第二行", 0, 50), line("Hello", 0, 10), line("文字", 60, 52), line("第", 0, 100)])).toEqual(["Hello world", "第二行文字", "第"]);
  });

  test("CTC: the likeliest class a step, repeats merged, blanks dropped", () => {
    const characters = ["a", "b"];
    // steps: a a blank a b b
    const steps = [1, 1, 0, 1, 2, 2];
    const probabilities = new Float32Array(steps.length * 3);
    steps.forEach((best, step) => {
      probabilities.fill(0.05, step * 3, step * 3 + 3);
      probabilities[step * 3 + best] = 0.9;
    });
    expect(decodeCtc(probabilities, steps.length, 3, characters)).toEqual({ text: "aab", score: expect.closeTo(0.9, 5) });
  });
});
