import type fs from "node:fs";
import { TranscriptError } from "../transcript-error";

/** Sample bytes are copied through a buffer of this size (one per recording, reused for every piece). */
export const COPY_BLOCK_BYTES = 1024 * 1024;

export interface Box {
  type: string;
  /** Where its payload starts and where the box ends. */
  start: number;
  end: number;
}

export function damaged(why: string): TranscriptError {
  return new TranscriptError(`the MP4 is damaged or hostile: ${why}`);
}

export function* children(view: DataView, start: number, end: number): Generator<Box> {
  let at = start;
  while (at + 8 <= end) {
    let size = view.getUint32(at);
    const type = String.fromCharCode(view.getUint8(at + 4), view.getUint8(at + 5), view.getUint8(at + 6), view.getUint8(at + 7));
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) return;
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

export const child = (view: DataView, box: Box, type: string) => {
  for (const found of children(view, box.start, box.end)) if (found.type === type) return found;
  return undefined;
};

/** A box whose payload is shorter than the fields read from it is refused, not read past. */
export function holds(box: Box, bytes: number): void {
  if (box.end - box.start < bytes) throw damaged(`its ${box.type} box is too short`);
}

/**
 * Reads small ranges of a file front to back through one block, so a scan of a million boxes is a
 * few hundred reads, not a million awaited ones.
 */
export class BlockReader {
  readonly block: Buffer;
  /** The file's bytes [from, to) are in `block`. */
  from = 0;
  to = 0;
  constructor(
    private readonly handle: fs.promises.FileHandle,
    readonly size: number,
  ) {
    this.block = Buffer.allocUnsafe(COPY_BLOCK_BYTES);
  }
  has(at: number, length: number): boolean {
    return at >= this.from && at + length <= this.to;
  }
  /** Makes [at, at + length) readable from `block` (length at most the block's). */
  async load(at: number, length: number): Promise<void> {
    const want = Math.min(this.block.length, this.size - at);
    if (want < length) throw damaged("the file ends inside a box");
    await fill(this.handle, this.block, want, at);
    this.from = at;
    this.to = at + want;
  }
  /** The bytes [at, at + length) as a view, valid until the next load; a range larger than the block gets its own buffer. */
  async view(at: number, length: number): Promise<DataView> {
    if (length > this.block.length) {
      const own = Buffer.allocUnsafe(length);
      await fill(this.handle, own, length, at);
      return new DataView(own.buffer, own.byteOffset, length);
    }
    if (!this.has(at, length)) await this.load(at, length);
    return new DataView(this.block.buffer, this.block.byteOffset + (at - this.from), length);
  }
}

export async function fill(handle: fs.promises.FileHandle, buffer: Buffer, length: number, at: number): Promise<void> {
  const { bytesRead } = await handle.read(buffer, 0, length, at);
  if (bytesRead < length) throw damaged("the file ends inside a box");
}

export function fourcc(view: DataView, at: number): string {
  return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
}
