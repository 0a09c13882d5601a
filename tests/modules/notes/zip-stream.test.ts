import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { zipStream, type ZipEntry } from "../../../src/modules/notes/zip-stream";

async function zipOf(entries: ZipEntry[]): Promise<Uint8Array> {
  async function* each() {
    yield* entries;
  }
  return new Uint8Array(await new Response(zipStream(each())).arrayBuffer());
}

/** `unzip -t` checks every entry's CRC-32 and sizes against its data: a reader other than the one the export tests use. */
function unzipTest(bytes: Uint8Array): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zip-stream-"));
  try {
    const file = path.join(dir, "test.zip");
    fs.writeFileSync(file, bytes);
    const result = Bun.spawnSync(["unzip", "-t", file]);
    expect(result.exitCode).toBe(0);
    return result.stdout.toString();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("zipStream", () => {
  test("stores text, bytes and parts of both, with UTF-8 names and CRCs unzip checks", async () => {
    const when = new Date(2026, 10, 21, 13, 45, 30);
    const bytes = await zipOf([
      { name: "hello-1.md", lastModified: when, input: "---\ntitle: Hello\n---\n\nBody" },
      { name: "机器学习-2.md", lastModified: when, input: ["---\ntitle: 机器\n---\n\n", new TextEncoder().encode("🚀 launch é")] },
      { name: "empty-3.md", lastModified: when, input: "" },
      { name: "binary.bin", lastModified: when, input: new Uint8Array([0, 255, 1, 254]) },
    ]);
    expect(unzipTest(bytes)).toContain("No errors detected");
    const files = unzipSync(bytes);
    expect(Object.keys(files)).toEqual(["hello-1.md", "机器学习-2.md", "empty-3.md", "binary.bin"]);
    expect(new TextDecoder().decode(files["机器学习-2.md"])).toBe("---\ntitle: 机器\n---\n\n🚀 launch é");
    expect(files["binary.bin"]).toEqual(new Uint8Array([0, 255, 1, 254]));
  });

  test("an empty archive is a valid ZIP", async () => {
    const bytes = await zipOf([]);
    expect(bytes.length).toBe(22);
    expect(unzipSync(bytes)).toEqual({});
  });

  test("many files, small and large, across chunk boundaries", async () => {
    const large = "x".repeat(700 * 1024);
    const entries = Array.from({ length: 2000 }, (_, index) => ({
      name: `note-${index}.md`,
      lastModified: new Date(2026, 0, 1 + (index % 28)),
      input: index % 500 === 7 ? large : `note ${index} ${"é".repeat(index % 300)}`,
    }));
    const bytes = await zipOf(entries);
    expect(unzipTest(bytes)).toContain("No errors detected in compressed data");
    const files = unzipSync(bytes);
    expect(Object.keys(files)).toHaveLength(2000);
    expect(new TextDecoder().decode(files["note-7.md"])).toBe(large);
    expect(new TextDecoder().decode(files["note-299.md"])).toBe(`note 299 ${"é".repeat(299)}`);
  });

  test("byte parts of every size, between text parts and across buffers, come out as they went in", async () => {
    const bytesOf = (index: number, size: number) => Uint8Array.from({ length: size }, (_, at) => (index * 31 + at) % 251);
    const entries = Array.from({ length: 600 }, (_, index) => ({
      name: `part-${index}.md`,
      lastModified: new Date(2026, 0, 1),
      input: index % 100 === 3 ? bytesOf(index, 150_000) : [`---\nid: ${index}\n---\n\n`, bytesOf(index, (index * 37) % 3000), `tail ${"é".repeat(index % 7)}`],
    }));
    const bytes = await zipOf(entries);
    expect(unzipTest(bytes)).toContain("No errors detected");
    const files = unzipSync(bytes);
    for (const [index, entry] of entries.entries()) {
      const parts = Array.isArray(entry.input) ? entry.input : [entry.input];
      const expected = Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part)));
      expect(Buffer.from(files[`part-${index}.md`]!).equals(expected)).toBe(true);
    }
  });

  test("past 65,535 entries the count goes in ZIP64 records", async () => {
    const bytes = await zipOf(Array.from({ length: 70_000 }, (_, index) => ({ name: `${index}.md`, lastModified: new Date(2026, 0, 1), input: "" })));
    expect(unzipTest(bytes)).toContain("No errors detected");
    expect(Object.keys(unzipSync(bytes))).toHaveLength(70_000);
  });

  test("the source is closed when the reader cancels", async () => {
    let closed = false;
    async function* endless() {
      try {
        for (let index = 0; ; index++) yield { name: `${index}.md`, lastModified: new Date(), input: "x".repeat(1000) };
      } finally {
        closed = true;
      }
    }
    const reader = zipStream(endless()).getReader();
    await reader.read();
    await reader.cancel();
    expect(closed).toBe(true);
  });
});
