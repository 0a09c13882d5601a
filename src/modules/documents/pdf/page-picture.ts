import type { Pixels } from "../png";

/** PDF.js's operator numbers for painting an image (its `OPS`). */
export interface ImageOps {
  paintImageXObject: number;
  paintInlineImageXObject: number;
  paintImageXObjectRepeat: number;
}

/** What PDF.js gives for a decoded image: `kind` 1 is one bit a pixel (a set bit white), 2 RGB, 3 RGBA. */
interface DecodedImage {
  width?: number;
  height?: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

interface PageLike {
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  objs: { get(id: string, callback: (value: unknown) => void): void };
  commonObjs: { get(id: string, callback: (value: unknown) => void): void };
}

/**
 * The largest picture the page paints (a scanned page's scan), decoded by PDF.js from the page's
 * operator list: no canvas and no rendering. Null when the page paints none PDF.js could decode.
 */
export async function largestPicture(page: PageLike, ops: ImageOps): Promise<Pixels | null> {
  const operators = await page.getOperatorList();
  let best: { area: number; image: () => Promise<DecodedImage | null> } | null = null;
  operators.fnArray.forEach((operator, index) => {
    const args = operators.argsArray[index] ?? [];
    let candidate: typeof best = null;
    if (operator === ops.paintImageXObject || operator === ops.paintImageXObjectRepeat) {
      const [id, width, height] = args as [unknown, unknown, unknown];
      if (typeof id === "string") {
        const area = Number(width) * Number(height) || 0;
        const store = id.startsWith("g_") ? page.commonObjs : page.objs;
        candidate = { area, image: () => new Promise((resolve) => store.get(id, (value) => resolve((value as DecodedImage) ?? null))) };
      }
    } else if (operator === ops.paintInlineImageXObject) {
      const image = args[0] as DecodedImage | undefined;
      if (image) candidate = { area: (image.width ?? 0) * (image.height ?? 0), image: async () => image };
    }
    if (candidate && (!best || candidate.area > best.area)) best = candidate;
  });
  if (!best) return null;
  return toPixels(await (best as { image: () => Promise<DecodedImage | null> }).image());
}

/** A decoded image as 8-bit pixels; null for a form this does not read. */
export function toPixels(image: DecodedImage | null): Pixels | null {
  const { width = 0, height = 0, kind, data } = image ?? {};
  if (!data || width <= 0 || height <= 0) return null;
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (kind === 1) {
    const stride = (width + 7) >> 3;
    if (bytes.length < stride * height) return null;
    const grey = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) grey[y * width + x] = bytes[y * stride + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
    }
    return { width, height, channels: 1, data: grey };
  }
  const channels = bytes.length / (width * height);
  if (channels !== 1 && channels !== 3 && channels !== 4) return null;
  return { width, height, channels, data: bytes };
}
