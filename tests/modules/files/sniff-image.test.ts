import { describe, expect, test } from "bun:test";
import { sniffImageType } from "../../../src/modules/files/sniff-image";
import { imageBytes } from "../../support/images";

describe("sniffImageType", () => {
  test.each([
    ["png", "image/png"],
    ["jpeg", "image/jpeg"],
    ["gif", "image/gif"],
    ["webp", "image/webp"],
    ["avif", "image/avif"],
  ] as const)("knows %s by its first bytes", (type, mime) => {
    expect(sniffImageType(imageBytes(type, 64))?.mime).toBe(mime);
  });

  test("an AVIF sequence (avis) and an AVIF named only among the compatible brands are AVIF; HEIC is not", () => {
    const box = (major: string, ...compatible: string[]) => {
      const size = 16 + compatible.length * 4;
      const bytes = Buffer.alloc(Math.max(size, 32));
      bytes.writeUInt32BE(size, 0);
      bytes.write(`ftyp${major}\0\0\0\0${compatible.join("")}`, 4, "latin1");
      return bytes;
    };
    expect(sniffImageType(box("avis", "msf1"))?.mime).toBe("image/avif");
    expect(sniffImageType(box("mif1", "miaf", "avif"))?.mime).toBe("image/avif");
    expect(sniffImageType(box("heic", "mif1", "heic"))).toBeNull();
  });

  test.each([
    ["SVG", '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ["SVG with an XML declaration", '<?xml version="1.0"?><svg/>'],
    ["HTML", "<!doctype html><title>x</title>"],
    ["a truncated PNG signature", "\x89PNG\r\n"],
    ["RIFF that is not WebP", "RIFF\0\0\0\0WAVEfmt "],
    ["nothing", ""],
  ])("refuses %s", (_name, text) => {
    expect(sniffImageType(Buffer.from(text, "latin1"))).toBeNull();
  });
});
