/** Bytes that start as the named image type does (all the service looks at), padded to `size` with a seeded pattern. */
export function imageBytes(type: "png" | "jpeg" | "gif" | "webp" | "avif", size = 256, seed = 1): Uint8Array<ArrayBuffer> {
  const heads: Record<typeof type, number[]> = {
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52],
    jpeg: [0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0],
    gif: [...Buffer.from("GIF89a"), 1, 0, 1, 0],
    webp: [...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBPVP8 ")],
    avif: [0, 0, 0, 0x1c, ...Buffer.from("ftypavif"), 0, 0, 0, 0, ...Buffer.from("avifmif1miaf")],
  };
  const bytes = new Uint8Array(new ArrayBuffer(Math.max(size, heads[type].length)));
  let state = seed * 2654435761;
  for (let i = 0; i < bytes.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  bytes.set(heads[type]);
  return bytes;
}
