/** An RGBA picture in memory: 4 bytes a pixel, rows top to bottom. */
export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The picture at a new size. Shrinking averages every source pixel a target pixel covers (no
 * aliasing on thin strokes); enlarging interpolates bilinearly.
 */
export function resizePixels(source: Pixels, width: number, height: number): Pixels {
  width = Math.max(1, Math.round(width));
  height = Math.max(1, Math.round(height));
  if (width === source.width && height === source.height) return source;
  if (width <= source.width && height <= source.height) return shrink(source, width, height);
  return bilinear(source, width, height);
}

function shrink(source: Pixels, width: number, height: number): Pixels {
  const out = new Uint8Array(width * height * 4);
  const sx = source.width / width;
  const sy = source.height / height;
  const src = source.data;
  const row = new Float64Array(width * 4);
  for (let y = 0; y < height; y++) {
    row.fill(0);
    const y0 = y * sy;
    const y1 = y0 + sy;
    let weightY = 0;
    for (let yy = Math.floor(y0); yy < Math.min(source.height, Math.ceil(y1)); yy++) {
      const wy = Math.min(yy + 1, y1) - Math.max(yy, y0);
      weightY += wy;
      const base = yy * source.width * 4;
      for (let x = 0; x < width; x++) {
        const x0 = x * sx;
        const x1 = x0 + sx;
        let r = 0, g = 0, b = 0, a = 0;
        for (let xx = Math.floor(x0); xx < Math.min(source.width, Math.ceil(x1)); xx++) {
          const wx = Math.min(xx + 1, x1) - Math.max(xx, x0);
          const i = base + xx * 4;
          r += src[i]! * wx;
          g += src[i + 1]! * wx;
          b += src[i + 2]! * wx;
          a += src[i + 3]! * wx;
        }
        const o = x * 4;
        row[o] = row[o]! + r * wy;
        row[o + 1] = row[o + 1]! + g * wy;
        row[o + 2] = row[o + 2]! + b * wy;
        row[o + 3] = row[o + 3]! + a * wy;
      }
    }
    const norm = 1 / (weightY * sx);
    const base = y * width * 4;
    for (let i = 0; i < width * 4; i++) out[base + i] = Math.round(row[i]! * norm);
  }
  return { data: out, width, height };
}

function bilinear(source: Pixels, width: number, height: number): Pixels {
  const out = new Uint8Array(width * height * 4);
  const src = source.data;
  const sx = source.width / width;
  const sy = source.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(source.height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(source.height - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(source.width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(source.width - 1, x0 + 1);
      const wx = fx - x0;
      const a = (y0 * source.width + x0) * 4;
      const b = (y0 * source.width + x1) * 4;
      const c = (y1 * source.width + x0) * 4;
      const d = (y1 * source.width + x1) * 4;
      const o = (y * width + x) * 4;
      for (let k = 0; k < 4; k++) {
        const top = src[a + k]! * (1 - wx) + src[b + k]! * wx;
        const bottom = src[c + k]! * (1 - wx) + src[d + k]! * wx;
        out[o + k] = Math.round(top * (1 - wy) + bottom * wy);
      }
    }
  }
  return { data: out, width, height };
}

/** The part of the picture inside `box` (clipped to the picture). */
export function cropPixels(source: Pixels, box: Box): Pixels {
  const left = Math.max(0, Math.floor(box.left));
  const top = Math.max(0, Math.floor(box.top));
  const right = Math.min(source.width, Math.ceil(box.left + box.width));
  const bottom = Math.min(source.height, Math.ceil(box.top + box.height));
  const width = Math.max(1, right - left);
  const height = Math.max(1, bottom - top);
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * source.width + left) * 4;
    out.set(source.data.subarray(from, from + width * 4), y * width * 4);
  }
  return { data: out, width, height };
}

/** The picture turned a quarter counter-clockwise (a column of vertical text becomes a row). */
export function rotateCounterClockwise(source: Pixels): Pixels {
  const { width, height } = source;
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 4;
      const to = ((width - 1 - x) * height + y) * 4;
      out[to] = source.data[from]!;
      out[to + 1] = source.data[from + 1]!;
      out[to + 2] = source.data[from + 2]!;
      out[to + 3] = source.data[from + 3]!;
    }
  }
  return { data: out, width: height, height: width };
}

/**
 * The picture as the models take it: a planar float tensor in B, G, R order (PaddleOCR reads
 * pictures as OpenCV does), each channel `(value / 255 - mean) / std`. `into` receives it at
 * `offset` with rows `stride` pixels wide (the rest of a wider row stays as it is: padding).
 */
export function toPlanarBgr(
  source: Pixels,
  mean: readonly [number, number, number],
  std: readonly [number, number, number],
  into = new Float32Array(source.width * source.height * 3),
  stride = source.width,
  planeSize = source.width * source.height,
): Float32Array {
  const { data, width, height } = source;
  const scale = [1 / (255 * std[0]), 1 / (255 * std[1]), 1 / (255 * std[2])] as const;
  const shift = [mean[0] / std[0], mean[1] / std[1], mean[2] / std[2]] as const;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const o = y * stride + x;
      into[o] = data[i + 2]! * scale[0] - shift[0];
      into[planeSize + o] = data[i + 1]! * scale[1] - shift[1];
      into[2 * planeSize + o] = data[i]! * scale[2] - shift[2];
    }
  }
  return into;
}
