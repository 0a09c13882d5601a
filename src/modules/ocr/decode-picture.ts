import fs from "node:fs";
import { createRequire } from "node:module";
import decodeAvif, { init as initAvif } from "@jsquash/avif/decode.js";
import decodeWebp, { init as initWebp } from "@jsquash/webp/decode.js";
import { convertIndexedToRgb, decode as decodePng } from "fast-png";
import jpeg from "jpeg-js";
import { GifReader } from "omggif";
import { sniffImageType } from "../files/sniff-image";
import type { Pixels } from "./pixels";

/**
 * The most pixels a picture may declare (a 10 MiB file can claim 16k × 16k and ask for a gigabyte
 * once decoded): 40 million, 160 MB as RGBA, read and then shrunk at once.
 */
export const MAX_DECODED_PIXELS = 40_000_000;

export class PictureError extends Error {}

/**
 * A stored picture's pixels as RGBA, transparency laid over white (dark text on a transparent
 * background stays readable). PNG, JPEG, the first frame of a GIF, WebP and AVIF — the types the
 * service stores; the size each declares is checked before any pixel is decoded.
 */
export async function decodePicture(bytes: Uint8Array): Promise<Pixels> {
  const type = sniffImageType(bytes.subarray(0, 64));
  if (!type) throw new PictureError("not a picture the service stores");
  const declared = declaredSize(type.ext, bytes);
  if (!declared) throw new PictureError(`a ${type.ext} whose size cannot be read`);
  if (declared.width * declared.height > MAX_DECODED_PIXELS) {
    throw new PictureError(`${declared.width}×${declared.height} is more than ${MAX_DECODED_PIXELS / 1e6} million pixels`);
  }
  try {
    return onWhite(await decodeByType(type.ext, bytes));
  } catch (error) {
    if (error instanceof PictureError) throw error;
    throw new PictureError(`the ${type.ext} cannot be decoded: ${(error as Error).message}`);
  }
}

async function decodeByType(ext: string, bytes: Uint8Array): Promise<Pixels> {
  switch (ext) {
    case "png":
      return pngPixels(bytes);
    case "jpg": {
      const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_DECODED_PIXELS / 1e6, maxMemoryUsageInMB: 512 });
      return { data: image.data, width: image.width, height: image.height };
    }
    case "gif": {
      const reader = new GifReader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      const data = new Uint8Array(reader.width * reader.height * 4);
      reader.decodeAndBlitFrameRGBA(0, data);
      return { data, width: reader.width, height: reader.height };
    }
    case "webp": {
      await wasmReady("webp");
      const image = await decodeWebp(exactBuffer(bytes));
      return { data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength), width: image.width, height: image.height };
    }
    case "avif": {
      await wasmReady("avif");
      const image = await decodeAvif(exactBuffer(bytes));
      if (!image) throw new PictureError("the avif cannot be decoded");
      return { data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength), width: image.width, height: image.height };
    }
  }
  throw new PictureError(`no decoder for ${ext}`);
}

function pngPixels(bytes: Uint8Array): Pixels {
  const png = decodePng(bytes);
  const { width, height } = png;
  let samples: Uint8Array | Uint16Array | Uint8ClampedArray = png.data;
  let channels = png.channels;
  if (png.palette) {
    samples = convertIndexedToRgb(png);
    channels = png.palette[0]?.length ?? 3;
  }
  const shift = png.depth === 16 && !png.palette ? 8 : 0;
  const data = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    const i = p * channels;
    const o = p * 4;
    if (channels >= 3) {
      data[o] = samples[i]! >> shift;
      data[o + 1] = samples[i + 1]! >> shift;
      data[o + 2] = samples[i + 2]! >> shift;
      data[o + 3] = channels === 4 ? samples[i + 3]! >> shift : 255;
    } else {
      const grey = samples[i]! >> shift;
      data[o] = data[o + 1] = data[o + 2] = grey;
      data[o + 3] = channels === 2 ? samples[i + 1]! >> shift : 255;
    }
  }
  return { data, width, height };
}

function onWhite(pixels: Pixels): Pixels {
  const { data } = pixels;
  for (let i = 0; i < data.length; i += 4) {
    const alpha = data[i + 3]!;
    if (alpha === 255) continue;
    const keep = alpha / 255;
    const white = 255 * (1 - keep);
    data[i] = data[i]! * keep + white;
    data[i + 1] = data[i + 1]! * keep + white;
    data[i + 2] = data[i + 2]! * keep + white;
    data[i + 3] = 255;
  }
  return pixels;
}

/** The width and height a picture's header declares, or null when it cannot be found. */
export function declaredSize(ext: string, bytes: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fits = (end: number) => bytes.length >= end;
  switch (ext) {
    case "png":
      return fits(24) ? { width: view.getUint32(16), height: view.getUint32(20) } : null;
    case "gif":
      return fits(10) ? { width: view.getUint16(6, true), height: view.getUint16(8, true) } : null;
    case "jpg":
      return jpegSize(bytes, view);
    case "webp":
      return webpSize(bytes, view);
    case "avif": {
      // The first `ispe` (image spatial extent) property: version/flags, then width and height.
      const at = indexOf(bytes, "ispe", Math.min(bytes.length, 1 << 16));
      return at >= 0 && fits(at + 16) ? { width: view.getUint32(at + 8), height: view.getUint32(at + 12) } : null;
    }
  }
  return null;
}

function jpegSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = view.getUint16(at + 2);
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC): the frame header with the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

function webpSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | null {
  if (bytes.length < 30) return null;
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === "VP8X") return { width: 1 + (view.getUint32(24, true) & 0xffffff), height: 1 + (view.getUint32(27, true) & 0xffffff) };
  if (chunk === "VP8L") {
    const bits = view.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ") return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  return null;
}

function indexOf(bytes: Uint8Array, ascii: string, end: number): number {
  const codes = [...ascii].map((c) => c.charCodeAt(0));
  outer: for (let i = 0; i + codes.length <= end; i++) {
    for (let k = 0; k < codes.length; k++) if (bytes[i + k] !== codes[k]) continue outer;
    return i;
  }
  return -1;
}

function exactBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

const require = createRequire(import.meta.url);
const wasmInits = new Map<string, Promise<void>>();

/** The codec's WebAssembly compiled from the package's own file (no fetch of a URL). */
function wasmReady(codec: "webp" | "avif"): Promise<void> {
  let ready = wasmInits.get(codec);
  if (!ready) {
    const file = require.resolve(`@jsquash/${codec}/codec/dec/${codec}_dec.wasm`);
    // The packages' typings omit the overload that takes a compiled module.
    const init = (codec === "webp" ? initWebp : initAvif) as unknown as (module: WebAssembly.Module) => Promise<void>;
    ready = WebAssembly.compile(fs.readFileSync(file)).then(init);
    wasmInits.set(codec, ready);
  }
  return ready;
}
