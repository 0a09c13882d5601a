import { deflateSync } from "node:zlib";

/** Decoded pixels: 1 (grey), 3 (RGB) or 4 (RGBA) bytes a pixel, rows one after the other. */
export interface Pixels {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Uint8Array;
}

const COLOUR_TYPES = { 1: 0, 3: 2, 4: 6 } as const;
const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** Pixels as a PNG file (8 bits a channel, each row filtered with "Up", which suits scans and text). */
export function encodePng(pixels: Pixels): Uint8Array {
  const { width, height, channels, data } = pixels;
  const stride = width * channels;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1);
    raw[row] = y === 0 ? 0 : 2;
    const from = y * stride;
    if (y === 0) raw.set(data.subarray(from, from + stride), row + 1);
    else for (let x = 0; x < stride; x++) raw[row + 1 + x] = (data[from + x]! - data[from - stride + x]!) & 0xff;
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, COLOUR_TYPES[channels], 0, 0, 0], 8);
  return concat([SIGNATURE, chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 6 })), chunk("IEND", new Uint8Array(0))]);
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(body, 8);
  view.setUint32(8 + body.length, Bun.hash.crc32(out.subarray(4, 8 + body.length)) >>> 0);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Pixels shrunk by a whole factor (each output pixel the mean of a factor × factor box), so the longer side is at most `maxSide`. */
export function shrinkToFit(pixels: Pixels, maxSide: number): Pixels {
  const factor = Math.ceil(Math.max(pixels.width, pixels.height) / maxSide);
  if (factor <= 1) return pixels;
  const { channels } = pixels;
  const width = Math.floor(pixels.width / factor);
  const height = Math.floor(pixels.height / factor);
  const data = new Uint8Array(width * height * channels);
  const area = factor * factor;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) {
        let sum = 0;
        for (let dy = 0; dy < factor; dy++) {
          const row = ((y * factor + dy) * pixels.width + x * factor) * channels + c;
          for (let dx = 0; dx < factor; dx++) sum += pixels.data[row + dx * channels]!;
        }
        data[(y * width + x) * channels + c] = Math.round(sum / area);
      }
    }
  }
  return { width, height, channels, data };
}
