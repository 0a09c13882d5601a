import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { createRequire } from "node:module";
import encodeAvif, { init as initAvifEncoder } from "@jsquash/avif/encode.js";
import { decode as decodePng, encode as encodePng } from "fast-png";
import { GifWriter } from "omggif";
import { decodePicture, PictureError } from "../../../src/modules/ocr/decode-picture";
import { OcrEngine, parts } from "../../../src/modules/ocr/engine";
import { chromiumForThisFile } from "../../support/browser";
import { assertChineseFont, characterErrorRate, CHINESE, drawTextPicture, ENGLISH, fixtureSet } from "../../support/ocr-pictures";

assertChineseFont();
const browser = await chromiumForThisFile();
let engine: OcrEngine;
beforeAll(async () => {
  engine = await OcrEngine.load();
});

const read = async (bytes: Uint8Array) => (await engine.read(await decodePicture(bytes))).join("\n");

describe("the OCR engine", () => {
  test("reads the fixture set's Chinese and English lines with a character error rate of at most 3 %", async () => {
    let drawn = "";
    let found = "";
    for (const spec of fixtureSet()) {
      const text = await read(await drawTextPicture(browser, spec));
      // Each picture on its own stays readable, and the lines come out in reading order.
      expect(characterErrorRate(spec.lines.join(""), text)).toBeLessThanOrEqual(0.05);
      expect(text.split("\n")).toHaveLength(spec.lines.length);
      drawn += spec.lines.join("");
      found += text;
    }
    expect(characterErrorRate(drawn, found)).toBeLessThanOrEqual(0.03);
  });

  test("reads WebP, GIF, AVIF and a transparent PNG as it reads a screenshot", async () => {
    const lines = [CHINESE[2]!, ENGLISH[0]!];
    const spec = { lines, width: 540, height: 360, fontSize: 24 };
    expect(characterErrorRate(lines.join(""), await read(await drawTextPicture(browser, { ...spec, type: "webp" })))).toBeLessThanOrEqual(0.03);

    const png = decodePng(await drawTextPicture(browser, spec));
    const channels = png.channels;
    // GIF: 256 greys.
    const indexes = new Uint8Array(png.width * png.height);
    for (let p = 0; p < indexes.length; p++) indexes[p] = png.data[p * channels]!;
    const gif = new Uint8Array(png.width * png.height + 4096);
    const writer = new GifWriter(gif, png.width, png.height, { palette: Array.from({ length: 256 }, (_, i) => (i << 16) | (i << 8) | i) });
    writer.addFrame(0, 0, png.width, png.height, indexes as unknown as number[]);
    expect(characterErrorRate(lines.join(""), await read(gif.subarray(0, writer.end())))).toBeLessThanOrEqual(0.03);

    // Dark text on a transparent background: the ink is the alpha channel.
    const rgba = new Uint8Array(png.width * png.height * 4);
    for (let p = 0; p < png.width * png.height; p++) rgba[p * 4 + 3] = 255 - png.data[p * channels]!;
    const transparent = encodePng({ width: png.width, height: png.height, data: rgba, channels: 4 });
    expect(characterErrorRate(lines.join(""), await read(transparent))).toBeLessThanOrEqual(0.03);

    // AVIF, encoded by the same package's encoder (WebAssembly compiled from its own file).
    const encoderWasm = createRequire(import.meta.url).resolve("@jsquash/avif/codec/enc/avif_enc.wasm");
    await (initAvifEncoder as unknown as (module: WebAssembly.Module) => Promise<void>)(await WebAssembly.compile(fs.readFileSync(encoderWasm)));
    const opaque = new Uint8ClampedArray(png.width * png.height * 4);
    for (let p = 0; p < png.width * png.height; p++) {
      for (let k = 0; k < 3; k++) opaque[p * 4 + k] = png.data[p * channels + k]!;
      opaque[p * 4 + 3] = 255;
    }
    const avif = await encodeAvif({ data: opaque, width: png.width, height: png.height, colorSpace: "srgb" } as ImageData, { quality: 70, speed: 10 });
    expect(characterErrorRate(lines.join(""), await read(new Uint8Array(avif)))).toBeLessThanOrEqual(0.03);
  });

  test("a long screenshot is read in overlapping parts, each line once", async () => {
    const lines = [...CHINESE, ...ENGLISH, ...CHINESE, ...ENGLISH, ...CHINESE.slice(0, 4)];
    const size = { width: 720, height: 1800 };
    expect(parts(size).length).toBeGreaterThan(1);
    const text = await read(await drawTextPicture(browser, { lines, ...size, fontSize: 24 }));
    expect(text.split("\n")).toHaveLength(lines.length);
    expect(characterErrorRate(lines.join(""), text)).toBeLessThanOrEqual(0.03);
  });

  test("a picture that is not one, or claims too many pixels, is refused before decoding", async () => {
    await expect(decodePicture(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"))).rejects.toBeInstanceOf(PictureError);
    // A PNG header claiming 60000 × 60000 pixels.
    const bomb = new Uint8Array(64);
    bomb.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(bomb.buffer).setUint32(16, 60000);
    new DataView(bomb.buffer).setUint32(20, 60000);
    await expect(decodePicture(bomb)).rejects.toThrow(/million pixels/);
    // A truncated JPEG.
    const jpeg = await drawTextPicture(browser, { lines: ["x"], width: 100, height: 100, fontSize: 20, type: "jpeg" });
    await expect(decodePicture(jpeg.subarray(0, 300))).rejects.toBeInstanceOf(PictureError);
  });

  test("a blank picture has no text", async () => {
    expect(await read(await drawTextPicture(browser, { lines: [], width: 400, height: 300, fontSize: 20 }))).toBe("");
  });
});
