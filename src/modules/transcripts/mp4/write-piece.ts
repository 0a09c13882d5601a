import fs from "node:fs";
import { TranscriptError } from "../transcript-error";
import { COPY_BLOCK_BYTES } from "./boxes";
import type { Mp4SoundTrack } from "./sample-table";

/** The two buffers a piece is copied through: the source's bytes are read, and the piece's written, a block at a time. */
export interface CopyBlocks {
  read: Buffer;
  write: Buffer;
}

export const copyBlocks = (): CopyBlocks => ({ read: Buffer.allocUnsafe(COPY_BLOCK_BYTES), write: Buffer.allocUnsafe(COPY_BLOCK_BYTES) });

/**
 * Writes samples [first, last) as an M4A: `ftyp`, one `mdat` of their bytes copied from the source
 * as they are, and a `moov` describing them as one chunk, their times starting at 0. The samples
 * lie in the file in order (the reader made sure), so the source is read front to back a block at a
 * time and the piece written a block at a time, however small and scattered the samples are.
 */
export async function writeMp4Piece(source: string, track: Mp4SoundTrack, first: number, last: number, target: string, blocks: CopyBlocks = copyBlocks()): Promise<number> {
  const ftyp = box("ftyp", bytes("M4A "), u32(512), bytes("M4A "), bytes("isom"), bytes("iso2"), bytes("mp41"));
  let payload = 0;
  for (let index = first; index < last; index++) payload += track.sizes[index]!;
  const input = await fs.promises.open(source, "r");
  const output = await fs.promises.open(target, "w", 0o600);
  try {
    const { read, write } = blocks;
    let position = 0;
    let pending = 0;
    const flush = async () => {
      if (pending) await output.write(write, 0, pending, position);
      position += pending;
      pending = 0;
    };
    const append = async (data: Uint8Array) => {
      if (pending + data.byteLength > write.length) await flush();
      if (data.byteLength > write.length) {
        await output.write(data, 0, data.byteLength, position);
        position += data.byteLength;
      } else {
        write.set(data, pending);
        pending += data.byteLength;
      }
    };
    const readFully = async (into: Buffer, length: number, at: number) => {
      const { bytesRead } = await input.read(into, 0, length, at);
      if (bytesRead !== length) throw new TranscriptError("the media file ends before its samples do");
    };
    await append(ftyp);
    await append(concat(u32(8 + payload), bytes("mdat")));
    const dataStart = position + pending;
    // The source's bytes [from, to) are in `read`; nothing past the piece's last sample is read.
    const pieceEnd = track.offsets[last - 1]! + track.sizes[last - 1]!;
    let from = 0;
    let to = 0;
    for (let index = first; index < last; ) {
      // A run of samples that lie one after another in the source is copied in one go.
      const start = track.offsets[index]!;
      let end = start + track.sizes[index]!;
      index++;
      while (index < last && track.offsets[index] === end) end += track.sizes[index++]!;
      if (end - start > read.length) {
        for (let at = start; at < end; ) {
          const length = Math.min(read.length, end - at);
          await readFully(read, length, at);
          from = to = 0;
          await append(read.subarray(0, length));
          at += length;
        }
        continue;
      }
      if (start < from || end > to) {
        const length = Math.min(read.length, pieceEnd - start);
        await readFully(read, length, start);
        from = start;
        to = start + length;
      }
      await append(read.subarray(start - from, end - from));
    }
    await append(moovFor(track, first, last, dataStart));
    await flush();
    return position;
  } finally {
    await Promise.all([input.close(), output.close()]);
  }
}

function moovFor(track: Mp4SoundTrack, first: number, last: number, dataStart: number): Uint8Array {
  const count = last - first;
  let duration = 0;
  // Runs of equal durations, written straight into the box's bytes (a spread of millions of arguments would throw).
  const runs = new Uint32Array(count * 2);
  let entries = 0;
  for (let index = first; index < last; index++) {
    const delta = track.durations[index]!;
    duration += delta;
    if (entries && runs[entries * 2 - 1] === delta) runs[entries * 2 - 2]!++;
    else {
      runs[entries * 2] = 1;
      runs[entries * 2 + 1] = delta;
      entries++;
    }
  }
  const stts = new Uint8Array(entries * 8);
  const sttsView = new DataView(stts.buffer);
  for (let index = 0; index < entries * 2; index++) sttsView.setUint32(index * 4, runs[index]!);
  const sizes = new Uint8Array(count * 4);
  const sizeView = new DataView(sizes.buffer);
  for (let index = 0; index < count; index++) sizeView.setUint32(index * 4, track.sizes[first + index]!);
  const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].map(u32);
  const ts = track.timescale;
  const mvhd = fullBox("mvhd", 0, 0, u32(0), u32(0), u32(ts), u32(duration), u32(0x00010000), u16(0x0100), new Uint8Array(10), ...matrix, new Uint8Array(24), u32(2));
  const tkhd = fullBox("tkhd", 0, 3, u32(0), u32(0), u32(1), u32(0), u32(duration), new Uint8Array(8), u16(0), u16(0), u16(0x0100), u16(0), ...matrix, u32(0), u32(0));
  const mdhd = fullBox("mdhd", 0, 0, u32(0), u32(0), u32(ts), u32(duration), u16(0x55c4), u16(0));
  const hdlr = fullBox("hdlr", 0, 0, u32(0), bytes("soun"), new Uint8Array(12), bytes("SoundHandler\0"));
  const stbl = box(
    "stbl",
    track.sampleDescription,
    fullBox("stts", 0, 0, u32(entries), stts),
    fullBox("stsc", 0, 0, u32(1), u32(1), u32(count), u32(1)),
    fullBox("stsz", 0, 0, u32(0), u32(count), sizes),
    fullBox("stco", 0, 0, u32(1), u32(dataStart)),
  );
  const minf = box("minf", fullBox("smhd", 0, 0, u16(0), u16(0)), box("dinf", fullBox("dref", 0, 0, u32(1), fullBox("url ", 0, 1))), stbl);
  return box("moov", mvhd, box("trak", tkhd, box("mdia", mdhd, hdlr, minf)));
}

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const body = concat(...parts);
  return concat(u32(8 + body.byteLength), bytes(type), body);
}

function fullBox(type: string, version: number, flags: number, ...parts: Uint8Array[]): Uint8Array {
  return box(type, u32(((version & 0xff) << 24) | (flags & 0xffffff)), ...parts);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0);
  return out;
}
function u16(value: number): Uint8Array {
  const out = new Uint8Array(2);
  new DataView(out.buffer).setUint16(0, value);
  return out;
}
