import type { Box } from "./pixels";

/** PaddleOCR's DB post-processing defaults: text where p > 0.3, a region kept at mean p ≥ 0.6, grown 1.5×. */
export const BOX_DEFAULTS = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5, minSide: 3 };

/**
 * The text regions of a detection map (one probability a pixel, `width` × `height`): each connected
 * region of likely text, as its bounding box grown by DB's unclip distance (area × ratio / perimeter),
 * in the map's coordinates. Axis-aligned: printed lines in screenshots and photos of pages are level
 * or nearly so, and the recognizer tolerates a slight slant.
 */
export function textBoxes(probabilities: Float32Array, width: number, height: number, options = BOX_DEFAULTS): Box[] {
  const { threshold, boxThreshold, unclipRatio, minSide } = options;
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes: Box[] = [];
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || probabilities[start]! <= threshold) continue;
    let minX = width, minY = height, maxX = -1, maxY = -1;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const at = stack[--top]!;
      const x = at % width;
      const y = (at - x) / width;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const next = ny * width + nx;
          if (seen[next] || probabilities[next]! <= threshold) continue;
          seen[next] = 1;
          stack[top++] = next;
        }
      }
    }
    const boxWidth = maxX - minX + 1;
    const boxHeight = maxY - minY + 1;
    if (Math.min(boxWidth, boxHeight) < minSide) continue;
    if (meanInside(probabilities, width, minX, minY, boxWidth, boxHeight) < boxThreshold) continue;
    const grow = (boxWidth * boxHeight * unclipRatio) / (2 * (boxWidth + boxHeight));
    const grown = { left: minX - grow, top: minY - grow, width: boxWidth + 2 * grow, height: boxHeight + 2 * grow };
    if (Math.min(grown.width, grown.height) < minSide + 2) continue;
    boxes.push(clip(grown, width, height));
  }
  return boxes;
}

function meanInside(probabilities: Float32Array, stride: number, left: number, top: number, width: number, height: number): number {
  let sum = 0;
  for (let y = top; y < top + height; y++) {
    for (let x = left; x < left + width; x++) sum += probabilities[y * stride + x]!;
  }
  return sum / (width * height);
}

function clip(box: Box, width: number, height: number): Box {
  const left = Math.max(0, box.left);
  const top = Math.max(0, box.top);
  const right = Math.min(width, box.left + box.width);
  const bottom = Math.min(height, box.top + box.height);
  return { left, top, width: right - left, height: bottom - top };
}

export interface ReadLine {
  text: string;
  score: number;
  box: Box;
}

/**
 * Lines in reading order: boxes whose vertical middles lie within half a line's height of each
 * other are one row, read left to right; rows top to bottom. A row's pieces are joined by a space,
 * except between two Chinese characters.
 */
export function readingOrder(lines: ReadLine[]): string[] {
  const rows: ReadLine[][] = [];
  for (const line of [...lines].sort((a, b) => middle(a) - middle(b))) {
    const row = rows.find((candidate) => {
      const first = candidate[0]!;
      return Math.abs(middle(first) - middle(line)) < Math.min(first.box.height, line.box.height) / 2;
    });
    if (row) row.push(line);
    else rows.push([line]);
  }
  return rows.map((row) =>
    row
      .sort((a, b) => a.box.left - b.box.left)
      .map((line) => line.text.trim())
      .filter((text) => text.length > 0)
      .reduce((joined, text) => (joined === "" ? text : joined + (isHan(joined.at(-1)!) && isHan(text[0]!) ? "" : " ") + text), ""),
  ).filter((row) => row.length > 0);
}

const middle = (line: ReadLine) => line.box.top + line.box.height / 2;

const HAN = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u;
export const isHan = (character: string) => HAN.test(character);
