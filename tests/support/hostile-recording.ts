import fs from "node:fs";
import { recordingBytes } from "./aac-audio";

/**
 * Recordings built to exhaust a reader, written to disk a block at a time (never whole in memory):
 * the MP4 shapes CONTRACT "Transcripts" names — millions of tiny boxes, sample counts that lie, a
 * box larger than its file — and, for the other containers, millions of tiny AAC frames.
 */
export type HostileRecording = "many-boxes" | "lying-counts" | "oversized-box" | "tiny-frames";

const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
};
const box = (type: string, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, "latin1"), body]);
};
const ftyp = box("ftyp", Buffer.from("M4A ", "latin1"), u32(512), Buffer.from("M4A isomiso2", "latin1"));

/** Writes the hostile file; `boxes` sets how many `moof` boxes "many-boxes" has (two million by default: 16 MB). */
export async function writeHostileRecording(file: string, kind: HostileRecording, { boxes = 2_000_000 }: { boxes?: number } = {}): Promise<void> {
  const handle = await fs.promises.open(file, "w");
  try {
    if (kind === "tiny-frames") {
      // Raw AAC (ADTS), 8 kHz mono: 2.4 million 9-byte frames with nothing in them (21 MB, 85 hours).
      const frame = Buffer.from([0xff, 0xf1, 0x6c, 0x40, 0x01, 0x3f, 0xfc, 0, 0]);
      const block = Buffer.concat(Array.from({ length: 65_536 }, () => frame));
      for (let left = 2_400_000; left > 0; left -= 65_536) await handle.write(block, 0, Math.min(left, 65_536) * frame.length);
    } else if (kind === "many-boxes") {
      // An ftyp, empty 8-byte moof boxes, then a tiny moov: what the review sent.
      await handle.write(ftyp);
      const perBlock = 65_536;
      const block = Buffer.alloc(8 * perBlock);
      for (let index = 0; index < perBlock; index++) block.write("\0\0\0\x08moof", index * 8, "latin1");
      for (let left = boxes; left > 0; left -= perBlock) await handle.write(block, 0, Math.min(left, perBlock) * 8);
      await handle.write(box("moov"));
    } else if (kind === "lying-counts") {
      // A real fragmented recording's ftyp and moov, then a moof whose trun claims four billion
      // samples of 0 bytes and no duration (the moov's trex defaults), each costing nothing to claim.
      const init = await initSegment();
      await handle.write(init.bytes);
      const tfhd = box("tfhd", u32(0x020000 | 0x08 | 0x10), u32(init.trackId), u32(0), u32(0));
      const trun = box("trun", u32(0x000001), u32(4_000_000_000), u32(0));
      await handle.write(box("moof", box("mfhd", u32(0), u32(1)), box("traf", tfhd, box("tfdt", u32(0), u32(0)), trun)));
      await handle.write(box("mdat", Buffer.alloc(1024)));
    } else {
      // A moov whose 64-bit size says a terabyte, in a file of a few hundred bytes.
      await handle.write(ftyp);
      const header = Buffer.concat([u32(1), Buffer.from("moov", "latin1"), Buffer.alloc(8)]);
      header.writeBigUInt64BE(2n ** 40n, 8);
      await handle.write(Buffer.concat([header, Buffer.alloc(256)]));
    }
  } finally {
    await handle.close();
  }
}

/** The ftyp and moov of a real fragmented (DASH) recording, and its sound track's id. */
async function initSegment(): Promise<{ bytes: Buffer; trackId: number }> {
  const recording = Buffer.from(await recordingBytes({ seconds: 1, fragmented: true }));
  const moof = recording.indexOf("moof", 0, "latin1") - 4;
  const bytes = recording.subarray(0, moof);
  const tkhd = bytes.indexOf("tkhd", 0, "latin1");
  const version = bytes[tkhd + 4];
  return { bytes, trackId: bytes.readUInt32BE(tkhd + 4 + (version === 1 ? 20 : 12)) };
}
