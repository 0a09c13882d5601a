// The browser extension's icons, drawn here as PNGs (no image files kept in the repository): a
// green rounded square with three white nodes joined, Rhizome's graph in miniature.
import { zlibSync } from "fflate";

type Point = [number, number];

const NODES: Point[] = [
  [0.3, 0.34],
  [0.7, 0.3],
  [0.52, 0.72],
];
const EDGES: [number, number][] = [
  [0, 1],
  [1, 2],
  [2, 0],
];
const GREEN: [number, number, number] = [0x15, 0x80, 0x3d];
const SAMPLES = 4;

function distanceToSegment([px, py]: Point, [ax, ay]: Point, [bx, by]: Point): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** What covers a point of the unit square: nothing, the green tile, or a white node or edge. */
function shade(point: Point): "none" | "tile" | "mark" {
  const [x, y] = point;
  const radius = 0.2;
  const inset = Math.max(Math.abs(x - 0.5), Math.abs(y - 0.5));
  const corner = Math.hypot(Math.max(Math.abs(x - 0.5) - (0.5 - radius), 0), Math.max(Math.abs(y - 0.5) - (0.5 - radius), 0));
  if (inset > 0.5 || corner > radius) return "none";
  if (NODES.some(([nx, ny]) => Math.hypot(x - nx, y - ny) < 0.11)) return "mark";
  if (EDGES.some(([a, b]) => distanceToSegment(point, NODES[a]!, NODES[b]!) < 0.035)) return "mark";
  return "tile";
}

/** RGBA pixels of the icon at `size`×`size`, each pixel supersampled. */
function drawIcon(size: number): Uint8Array {
  const pixels = new Uint8Array(size * size * 4);
  for (let row = 0; row < size; row++) {
    for (let column = 0; column < size; column++) {
      let tile = 0;
      let mark = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const covered = shade([(column + (sx + 0.5) / SAMPLES) / size, (row + (sy + 0.5) / SAMPLES) / size]);
          if (covered === "tile") tile++;
          else if (covered === "mark") mark++;
        }
      }
      const total = SAMPLES * SAMPLES;
      const alpha = (tile + mark) / total;
      const offset = (row * size + column) * 4;
      for (let channel = 0; channel < 3; channel++) {
        const colour = alpha === 0 ? 0 : (GREEN[channel]! * tile + 255 * mark) / (tile + mark);
        pixels[offset + channel] = Math.round(colour);
      }
      pixels[offset + 3] = Math.round(alpha * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The icon at `size` pixels as a PNG file (8-bit RGBA). */
export function iconPng(size: number): Uint8Array<ArrayBuffer> {
  const pixels = drawIcon(size);
  const rows = new Uint8Array(size * (size * 4 + 1));
  for (let row = 0; row < size; row++) rows.set(pixels.subarray(row * size * 4, (row + 1) * size * 4), row * (size * 4 + 1) + 1);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, size);
  view.setUint32(4, size);
  header.set([8, 6, 0, 0, 0], 8);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", zlibSync(rows, { level: 9 })), chunk("IEND", new Uint8Array())];
  const png = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    png.set(part, at);
    at += part.length;
  }
  return png;
}

export const ICON_SIZES = [16, 32, 48, 128] as const;
