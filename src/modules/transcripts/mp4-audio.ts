import fs from "node:fs";
import { TranscriptError } from "./transcript-error";

/**
 * The sound track of an MP4/M4A (plain, or fragmented as Bilibili's DASH streams are) as a table of
 * samples: where each one's bytes are, how large, and when it plays. Reading only the boxes that
 * describe the samples (`moov`, each `moof`) keeps a 3-hour soundtrack's table at a few MiB and
 * a tenth of a second, where a general demuxer builds an object per sample.
 */
export interface Mp4SoundTrack {
  timescale: number;
  /** The track's `stsd` box as it is: its sample entry (codec and its configuration) is copied verbatim. */
  sampleDescription: Uint8Array;
  count: number;
  offsets: Float64Array;
  sizes: Uint32Array;
  /** Decode times in seconds, from the track's start. */
  times: Float64Array;
  /** Durations in `timescale` units, as the written piece's `stts` needs them. */
  durations: Uint32Array;
  /** Where the track ends (seconds), samples past `keepSeconds` included though they are not in the table. */
  end: number;
}

export interface Mp4ReadOptions {
  /** Samples this far (seconds) past the first are left out of the table, but for the first one after. */
  keepSeconds?: number;
}

/** Sample bytes are copied through a buffer of this size (one per recording, reused for every piece). */
export const COPY_BLOCK_BYTES = 1024 * 1024;
/** Held in the table (24 bytes each, 24 MiB in all): 5.9 hours of 48 kHz AAC, twice the default STT_MAX_MINUTES. */
export const MAX_SAMPLES = 1_000_000;
/** Top-level boxes scanned: a DASH stream has two a fragment, so 100,000 fragments (3 hours of 0.1 s ones). */
const MAX_BOXES = 200_000;
/** One `moov` or `moof` is read whole; past this, it is not one we read. */
const MAX_DESCRIPTION_BYTES = 16 * 1024 * 1024;
/** Boxes an ISO BMFF file starts with (mediabunny's own test, and what QuickTime writes first). */
const FIRST_BOXES = new Set(["ftyp", "styp", "moov", "moof", "sidx", "emsg", "prft", "free", "skip", "wide", "mdat"]);

interface Box {
  type: string;
  /** Where its payload starts and where the box ends. */
  start: number;
  end: number;
}

function damaged(why: string): TranscriptError {
  return new TranscriptError(`the MP4 is damaged or hostile: ${why}`);
}

function* children(view: DataView, start: number, end: number): Generator<Box> {
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

const child = (view: DataView, box: Box, type: string) => {
  for (const found of children(view, box.start, box.end)) if (found.type === type) return found;
  return undefined;
};

/** A box whose payload is shorter than the fields read from it is refused, not read past. */
function holds(box: Box, bytes: number): void {
  if (box.end - box.start < bytes) throw damaged(`its ${box.type} box is too short`);
}

/**
 * Reads small ranges of a file front to back through one block, so a scan of a million boxes is a
 * few hundred reads, not a million awaited ones.
 */
class BlockReader {
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

async function fill(handle: fs.promises.FileHandle, buffer: Buffer, length: number, at: number): Promise<void> {
  const { bytesRead } = await handle.read(buffer, 0, length, at);
  if (bytesRead < length) throw damaged("the file ends inside a box");
}

const MOOV = 0x6d6f6f76;
const MOOF = 0x6d6f6f66;

/**
 * Reads the sound track's sample table; null when the file is not an ISO BMFF file (another
 * container, for mediabunny). An ISO BMFF file this cannot read is a TranscriptError: it is never
 * handed to a general demuxer, which would build an object for each of its boxes.
 */
export async function readMp4SoundTrack(file: string, options: Mp4ReadOptions = {}): Promise<Mp4SoundTrack | null> {
  const handle = await fs.promises.open(file, "r");
  try {
    const { size } = await handle.stat();
    if (size < 8) return null;
    const reader = new BlockReader(handle, size);
    const { block } = reader;
    let moov: DataView | undefined;
    // Where each moof is and how large, in pairs: read again one at a time once the moov (its defaults) is known.
    let fragments = new Float64Array(1024);
    let fragmentCount = 0;
    let boxes = 0;
    for (let at = 0; at + 8 <= size; ) {
      if (++boxes > MAX_BOXES) throw damaged(`it has more than ${MAX_BOXES} boxes`);
      const headLength = Math.min(16, size - at);
      if (!reader.has(at, headLength)) await reader.load(at, headLength);
      const head = at - reader.from;
      let boxSize = block.readUInt32BE(head);
      const type = block.readUInt32BE(head + 4);
      if (at === 0 && !FIRST_BOXES.has(block.toString("latin1", head + 4, head + 8))) return null;
      let header = 8;
      if (boxSize === 1) {
        if (headLength < 16) throw damaged("a box runs past the end of the file");
        boxSize = Number(block.readBigUInt64BE(head + 8));
        header = 16;
      } else if (boxSize === 0) boxSize = size - at;
      if (boxSize < header) throw damaged(`a ${block.toString("latin1", head + 4, head + 8)} box says it is ${boxSize} bytes long`);
      if (at + boxSize > size) throw damaged(`a ${block.toString("latin1", head + 4, head + 8)} box is larger than the file`);
      if (type === MOOV || type === MOOF) {
        if (boxSize > MAX_DESCRIPTION_BYTES) throw damaged(`a ${type === MOOV ? "moov" : "moof"} box is over ${MAX_DESCRIPTION_BYTES / 1024 / 1024} MiB`);
        if (type === MOOF) {
          if (fragmentCount + 2 > fragments.length) {
            const bigger = new Float64Array(fragments.length * 2);
            bigger.set(fragments);
            fragments = bigger;
          }
          fragments[fragmentCount++] = at;
          fragments[fragmentCount++] = boxSize;
        } else if (!moov) {
          const bytes = Buffer.allocUnsafe(boxSize);
          await fill(handle, bytes, boxSize, at);
          moov = new DataView(bytes.buffer, bytes.byteOffset, boxSize);
        }
      }
      at += boxSize;
    }
    if (!moov) throw new TranscriptError("the MP4 has no moov box, so nothing says what its samples are");
    return await soundTrackOf(moov, reader, fragments.subarray(0, fragmentCount), options);
  } catch (error) {
    if (error instanceof TranscriptError) throw error;
    throw damaged(error instanceof Error ? error.message : String(error));
  } finally {
    await handle.close();
  }
}

async function soundTrackOf(moov: DataView, reader: BlockReader, fragments: Float64Array, options: Mp4ReadOptions): Promise<Mp4SoundTrack> {
  const root: Box = { type: "moov", start: moov.getUint32(0) === 1 ? 16 : 8, end: moov.byteLength };
  for (const trak of children(moov, root.start, root.end)) {
    if (trak.type !== "trak") continue;
    const mdia = child(moov, trak, "mdia");
    const hdlr = mdia && child(moov, mdia, "hdlr");
    if (!mdia || !hdlr || hdlr.end - hdlr.start < 12 || fourcc(moov, hdlr.start + 8) !== "soun") continue;
    const mdhd = child(moov, mdia, "mdhd");
    const tkhd = child(moov, trak, "tkhd");
    const stbl = (() => {
      const minf = child(moov, mdia, "minf");
      return minf && child(moov, minf, "stbl");
    })();
    const stsd = stbl && child(moov, stbl, "stsd");
    if (!mdhd || !tkhd || !stbl || !stsd) throw damaged("its sound track lacks the boxes that describe it");
    holds(mdhd, moov.getUint8(mdhd.start) === 1 ? 24 : 16);
    holds(tkhd, moov.getUint8(tkhd.start) === 1 ? 24 : 16);
    const timescale = moov.getUint8(mdhd.start) === 1 ? moov.getUint32(mdhd.start + 20) : moov.getUint32(mdhd.start + 12);
    const trackId = moov.getUint8(tkhd.start) === 1 ? moov.getUint32(tkhd.start + 20) : moov.getUint32(tkhd.start + 12);
    if (timescale === 0) throw damaged("its sound track's timescale is 0");
    const sampleDescription = new Uint8Array(moov.buffer, moov.byteOffset + stsd.start - 8, stsd.end - stsd.start + 8).slice();
    const table = new SampleTable(timescale, reader.size, options.keepSeconds ?? Infinity);
    readPlainSamples(moov, stbl, table);
    if (fragments.length) await readFragmentSamples(moov, root, reader, fragments, trackId, table);
    if (table.count === 0) throw new TranscriptError("the media's sound track is empty");
    return { timescale, sampleDescription, ...table.done() };
  }
  throw new TranscriptError("the media has no sound track");
}

function fourcc(view: DataView, at: number): string {
  return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
}

/**
 * Grows typed arrays as samples are found (a fragmented file says its count only at the end). Every
 * sample must lie in the file, after the one before it; past `keepSeconds` samples only move the
 * track's end, so the table's size follows STT_MAX_MINUTES, not the file.
 */
class SampleTable {
  count = 0;
  /** True once the first sample past `keepSeconds` is in: later ones only move `end`. */
  full = false;
  private end = 0;
  private lastEnd = 0;
  offsets = new Float64Array(0);
  sizes = new Uint32Array(0);
  times = new Float64Array(0);
  durations = new Uint32Array(0);
  constructor(
    readonly timescale: number,
    private readonly fileSize: number,
    private readonly keepSeconds: number,
  ) {}
  /** `time` and `duration` in the track's timescale units. */
  add(offset: number, size: number, time: number, duration: number): void {
    this.passed(time, duration);
    if (this.full) return;
    if (offset + size > this.fileSize) throw damaged("its samples lie past the end of the file");
    if (offset < this.lastEnd) throw damaged("its samples overlap or run backwards");
    if (this.count >= MAX_SAMPLES) throw new TranscriptError(`the recording has more than ${MAX_SAMPLES} sound packets in the part to transcribe`);
    if (this.count === this.sizes.length) this.grow();
    const seconds = time / this.timescale;
    this.offsets[this.count] = offset;
    this.sizes[this.count] = size;
    this.times[this.count] = seconds;
    this.durations[this.count] = duration;
    this.lastEnd = offset + size;
    this.count++;
    if (seconds > this.times[0]! + this.keepSeconds) this.full = true;
  }
  /** Samples not kept still end the track where they end. */
  passed(time: number, duration: number): void {
    this.end = Math.max(this.end, (time + duration) / this.timescale);
  }
  private grow(): void {
    const length = Math.min(MAX_SAMPLES, Math.max(1024, this.sizes.length * 2));
    const bigger = <T extends Float64Array | Uint32Array>(array: T): T => {
      const copy = new (array.constructor as new (length: number) => T)(length);
      copy.set(array);
      return copy;
    };
    this.offsets = bigger(this.offsets);
    this.sizes = bigger(this.sizes);
    this.times = bigger(this.times);
    this.durations = bigger(this.durations);
  }
  done() {
    const n = this.count;
    return { count: n, offsets: this.offsets.subarray(0, n), sizes: this.sizes.subarray(0, n), times: this.times.subarray(0, n), durations: this.durations.subarray(0, n), end: this.end };
  }
}

/** stsz, stts, stsc and stco/co64 of a plain MP4 (all empty in a fragmented one). */
function readPlainSamples(view: DataView, stbl: Box, table: SampleTable): void {
  const stsz = child(view, stbl, "stsz");
  const stts = child(view, stbl, "stts");
  const stsc = child(view, stbl, "stsc");
  const stco = child(view, stbl, "stco");
  const co64 = child(view, stbl, "co64");
  if (!stsz || !stts || !stsc || !(stco || co64)) return;
  holds(stsz, 12);
  for (const box of [stts, stsc, stco ?? co64!]) holds(box, 8);
  // A count its box cannot hold is a lie: refused, so no loop runs on a number the file made up.
  const entries = (box: Box, header: number, width: number) => {
    const claimed = view.getUint32(box.start + header - 4);
    if (claimed > Math.floor((box.end - box.start - header) / width)) throw damaged(`its ${box.type} box claims ${claimed} entries it does not hold`);
    return claimed;
  };
  const fixedSize = view.getUint32(stsz.start + 4);
  const count = fixedSize === 0 ? entries(stsz, 12, 4) : view.getUint32(stsz.start + 8);
  if (count === 0) return;
  const sizeOf = (index: number) => (fixedSize !== 0 ? fixedSize : view.getUint32(stsz.start + 12 + index * 4));
  const chunks = stco ? entries(stco, 8, 4) : entries(co64!, 8, 8);
  const chunkOffset = (index: number) => (stco ? view.getUint32(stco.start + 8 + index * 4) : Number(view.getBigUint64(co64!.start + 8 + index * 8)));
  const runs = entries(stsc, 8, 12);
  const timeRuns = entries(stts, 8, 8);
  let timeRun = 0;
  let timeLeft = timeRuns ? view.getUint32(stts.start + 8) : 0;
  let delta = timeRuns ? view.getUint32(stts.start + 12) : 0;
  let time = 0;
  let sample = 0;
  for (let run = 0; run < runs && sample < count && !table.full; run++) {
    const base = stsc.start + 8 + run * 12;
    const firstChunk = view.getUint32(base) - 1;
    const lastChunk = run + 1 < runs ? view.getUint32(base + 12) - 1 : chunks;
    const perChunk = view.getUint32(base + 4);
    for (let chunk = firstChunk; chunk < lastChunk && chunk < chunks && sample < count && !table.full; chunk++) {
      let offset = chunkOffset(chunk);
      for (let inChunk = 0; inChunk < perChunk && sample < count && !table.full; inChunk++) {
        while (timeLeft === 0 && timeRun + 1 < timeRuns) {
          timeRun++;
          timeLeft = view.getUint32(stts.start + 8 + timeRun * 8);
          delta = view.getUint32(stts.start + 12 + timeRun * 8);
        }
        const size = sizeOf(sample);
        table.add(offset, size, time, delta);
        offset += size;
        time += delta;
        timeLeft--;
        sample++;
      }
    }
  }
  // The samples left out still end the track: their durations, from stts, without a loop over each.
  if (table.full) {
    let left = count - sample;
    for (let run = timeRun; run < timeRuns && left > 0; run++) {
      const runLeft = Math.min(left, run === timeRun ? Math.max(0, timeLeft) : view.getUint32(stts.start + 8 + run * 8));
      const runDelta = view.getUint32(stts.start + 12 + run * 8);
      time += runLeft * runDelta;
      left -= runLeft;
    }
    table.passed(time, 0);
  }
}

/** Each `moof`'s `traf` for the track: `tfhd` defaults, `tfdt` time, `trun` samples (ISO/IEC 14496-12 §8.8). */
async function readFragmentSamples(moov: DataView, root: Box, reader: BlockReader, fragments: Float64Array, trackId: number, table: SampleTable): Promise<void> {
  let defaultDuration = 0;
  let defaultSize = 0;
  const mvex = child(moov, root, "mvex");
  if (mvex) {
    for (const trex of children(moov, mvex.start, mvex.end)) {
      if (trex.type === "trex" && trex.end - trex.start >= 20 && moov.getUint32(trex.start + 4) === trackId) {
        defaultDuration = moov.getUint32(trex.start + 12);
        defaultSize = moov.getUint32(trex.start + 16);
      }
    }
  }
  let time = table.count ? Math.round(table.times[table.count - 1]! * table.timescale) + table.durations[table.count - 1]! : 0;
  for (let fragment = 0; fragment < fragments.length; fragment += 2) {
    const at = fragments[fragment]!;
    const view = await reader.view(at, fragments[fragment + 1]!);
    const header = view.getUint32(0) === 1 ? 16 : 8;
    for (const traf of children(view, header, view.byteLength)) {
      if (traf.type !== "traf") continue;
      const tfhd = child(view, traf, "tfhd");
      if (!tfhd || tfhd.end - tfhd.start < 8 || view.getUint32(tfhd.start + 4) !== trackId) continue;
      const flags = view.getUint32(tfhd.start) & 0xffffff;
      holds(tfhd, 8 + (flags & 0x1 ? 8 : 0) + (flags & 0x2 ? 4 : 0) + (flags & 0x8 ? 4 : 0) + (flags & 0x10 ? 4 : 0));
      let field = tfhd.start + 8;
      let base = at;
      if (flags & 0x1) {
        base = Number(view.getBigUint64(field));
        field += 8;
      }
      if (flags & 0x2) field += 4;
      let duration = defaultDuration;
      let size = defaultSize;
      if (flags & 0x8) {
        duration = view.getUint32(field);
        field += 4;
      }
      if (flags & 0x10) size = view.getUint32(field);
      const tfdt = child(view, traf, "tfdt");
      if (tfdt) {
        holds(tfdt, view.getUint8(tfdt.start) === 1 ? 12 : 8);
        // A fragment that starts before the last one ended keeps the clock going forward (times stay sorted).
        time = Math.max(time, view.getUint8(tfdt.start) === 1 ? Number(view.getBigUint64(tfdt.start + 4)) : view.getUint32(tfdt.start + 4));
      }
      for (const trun of children(view, traf.start, traf.end)) {
        if (trun.type !== "trun") continue;
        holds(trun, 8);
        const runFlags = view.getUint32(trun.start) & 0xffffff;
        const count = view.getUint32(trun.start + 4);
        let cursor = trun.start + 8;
        let offset = base;
        if (runFlags & 0x1) {
          holds(trun, cursor + 4 - trun.start);
          offset = base + view.getInt32(cursor);
          cursor += 4;
        }
        if (runFlags & 0x4) cursor += 4;
        const perSample = [0x100, 0x200, 0x400, 0x800].filter((bit) => runFlags & bit).length * 4;
        if (cursor > trun.end || count * perSample > trun.end - cursor) throw damaged(`a trun box claims ${count} samples it does not hold`);
        for (let index = 0; index < count; index++) {
          if (table.full && !(runFlags & 0x100)) {
            // Past what is kept, a run of equal durations moves the clock at once, however many it claims.
            time += (count - index) * duration;
            table.passed(time, 0);
            break;
          }
          let sampleDuration = duration;
          let sampleSize = size;
          if (runFlags & 0x100) {
            sampleDuration = view.getUint32(cursor);
            cursor += 4;
          }
          if (runFlags & 0x200) {
            sampleSize = view.getUint32(cursor);
            cursor += 4;
          }
          if (runFlags & 0x400) cursor += 4;
          if (runFlags & 0x800) cursor += 4;
          table.add(offset, sampleSize, time, sampleDuration);
          offset += sampleSize;
          time += sampleDuration;
        }
      }
    }
  }
}

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
