/** The image types the service stores, known by their first bytes (no package: five magic numbers). */
export interface ImageType {
  mime: "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "image/avif";
  ext: "png" | "jpg" | "gif" | "webp" | "avif";
}

/** How many leading bytes `sniffImageType` needs to see. */
export const SNIFF_BYTES = 64;

const ascii = (bytes: Uint8Array, start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));

/**
 * The type of an image from its leading bytes, or null for anything else — SVG included, since it
 * is a document that can carry script, not a picture. A declared Content-Type is never trusted.
 */
export function sniffImageType(head: Uint8Array): ImageType | null {
  if (head.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((byte, i) => head[i] === byte)) {
    return { mime: "image/png", ext: "png" };
  }
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { mime: "image/jpeg", ext: "jpg" };
  if (head.length >= 6 && /^GIF8[79]a$/.test(ascii(head, 0, 6))) return { mime: "image/gif", ext: "gif" };
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return { mime: "image/webp", ext: "webp" };
  if (isAvif(head)) return { mime: "image/avif", ext: "avif" };
  return null;
}

/** An ISO-BMFF `ftyp` box whose major or a compatible brand is `avif` (still) or `avis` (sequence). */
function isAvif(head: Uint8Array): boolean {
  if (head.length < 16 || ascii(head, 4, 8) !== "ftyp") return false;
  const boxSize = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(0);
  const end = Math.min(boxSize, head.length);
  const brands = [ascii(head, 8, 12)];
  for (let offset = 16; offset + 4 <= end; offset += 4) brands.push(ascii(head, offset, offset + 4));
  return brands.includes("avif") || brands.includes("avis");
}
