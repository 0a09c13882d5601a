// The app's icons (192 and 512 px PNG, and a maskable 512), drawn here when the bundle is built:
// a few connected nodes, white on the accent colour. Drawn, not committed, so the picture and the
// page's colours live in one place.
import { deflateSync } from "node:zlib";

export const THEME_COLOUR = "#2f6f8f";
const BACKGROUND: Rgb = [0x2f, 0x6f, 0x8f];
const INK: Rgb = [0xff, 0xff, 0xff];
type Rgb = [number, number, number];

/** Nodes and links on a unit square, kept inside the central 60% so a maskable crop never cuts them. */
const NODES: [number, number, number][] = [
  [0.5, 0.5, 0.085],
  [0.3, 0.32, 0.06],
  [0.72, 0.3, 0.06],
  [0.3, 0.7, 0.06],
  [0.7, 0.72, 0.07],
];
const LINKS: [number, number][] = [
  [0, 1],
  [0, 2],
  [0, 3],
  [0, 4],
  [1, 3],
  [2, 4],
];
const LINK_WIDTH = 0.03;

export interface Icon {
  name: string;
  size: number;
  purpose: "any" | "maskable";
  png: Uint8Array;
}

export function drawIcons(): Icon[] {
  return [
    { name: "icon-192.png", size: 192, purpose: "any", png: drawIcon(192, false) },
    { name: "icon-512.png", size: 512, purpose: "any", png: drawIcon(512, false) },
    { name: "icon-maskable-512.png", size: 512, purpose: "maskable", png: drawIcon(512, true) },
  ];
}

/** An RGBA PNG of the icon; `maskable` fills the whole square (the platform cuts its own shape). */
export function drawIcon(size: number, maskable: boolean): Uint8Array<ArrayBuffer> {
  const pixels = new Uint8Array(size * size * 4);
  const corner = maskable ? 0 : 0.2;
  // Edges smoothed by signed distance: a pixel half inside a shape is half covered.
  const coverage = (distance: number) => Math.min(1, Math.max(0, 0.5 - distance * size));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const u = (x + 0.5) / size;
      const v = (y + 0.5) / size;
      const inside = coverage(roundedSquareDistance(u, v, corner));
      const ink = coverage(drawingDistance(u, v));
      const offset = (y * size + x) * 4;
      for (let channel = 0; channel < 3; channel++) pixels[offset + channel] = Math.round(BACKGROUND[channel]! * (1 - ink) + INK[channel]! * ink);
      pixels[offset + 3] = Math.round(255 * inside);
    }
  }
  return encodePng(size, size, pixels);
}

/** Signed distance to the square with rounded corners (negative inside). */
function roundedSquareDistance(u: number, v: number, corner: number): number {
  if (corner === 0) return -1;
  const dx = Math.max(corner - u, u - (1 - corner), 0);
  const dy = Math.max(corner - v, v - (1 - corner), 0);
  if (dx === 0 && dy === 0) return -Math.min(u, v, 1 - u, 1 - v);
  return Math.hypot(dx, dy) - corner;
}

/** Signed distance to the nodes and links (negative inside). */
function drawingDistance(u: number, v: number): number {
  let nearest = Infinity;
  for (const [x, y, r] of NODES) nearest = Math.min(nearest, Math.hypot(u - x, v - y) - r);
  for (const [a, b] of LINKS) {
    const [ax, ay] = NODES[a]!;
    const [bx, by] = NODES[b]!;
    nearest = Math.min(nearest, distanceToSegment(u, v, ax, ay, bx, by) - LINK_WIDTH / 2);
  }
  return nearest;
}

function distanceToSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** PNG (RFC 2083): 8-bit RGBA, no filtering, one zlib stream. */
function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array<ArrayBuffer> {
  const rows = new Uint8Array(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) rows.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: 9 })), chunk("IEND", new Uint8Array())];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
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
