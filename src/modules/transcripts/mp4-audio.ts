import fs from "node:fs";

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
}

/** Sample bytes are copied through a buffer of this size (one per recording, reused for every piece). */
export const COPY_BLOCK_BYTES = 1024 * 1024;
/** More samples than this (30 hours of 44.1 kHz AAC) is not a recording we cut this way. */
const MAX_SAMPLES = 5_000_000;
/** Boxes that describe the samples are read whole; past this, the file is not one we cut this way. */
const MAX_DESCRIPTION_BYTES = 128 * 1024 * 1024;

interface Box {
  type: string;
  /** Where its payload starts and where the box ends. */
  start: number;
  end: number;
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

/** Reads the sound track's sample table, or null when the file is not an ISO BMFF file with one. */
export async function readMp4SoundTrack(file: string): Promise<Mp4SoundTrack | null> {
  const handle = await fs.promises.open(file, "r");
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(16);
    let moov: DataView | undefined;
    const fragments: { at: number; view: DataView }[] = [];
    let described = 0;
    for (let at = 0; at + 8 <= size; ) {
      await handle.read(head, 0, 16, at);
      let boxSize = head.readUInt32BE(0);
      const type = head.toString("latin1", 4, 8);
      if (at === 0 && type !== "ftyp" && type !== "styp" && type !== "moov") return null;
      if (boxSize === 1) boxSize = Number(head.readBigUInt64BE(8));
      else if (boxSize === 0) boxSize = size - at;
      if (boxSize < 8) return null;
      if (type === "moov" || type === "moof") {
        described += boxSize;
        if (described > MAX_DESCRIPTION_BYTES || at + boxSize > size) return null;
        const bytes = Buffer.alloc(boxSize);
        await handle.read(bytes, 0, boxSize, at);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        if (type === "moov") moov = view;
        else fragments.push({ at, view });
      }
      at += boxSize;
    }
    return moov ? soundTrackOf(moov, fragments) : null;
  } finally {
    await handle.close();
  }
}

function soundTrackOf(moov: DataView, fragments: { at: number; view: DataView }[]): Mp4SoundTrack | null {
  const root: Box = { type: "moov", start: 0, end: moov.byteLength };
  const whole = child(moov, root, "moov") ?? root;
  for (const trak of children(moov, whole.start, whole.end)) {
    if (trak.type !== "trak") continue;
    const mdia = child(moov, trak, "mdia");
    const hdlr = mdia && child(moov, mdia, "hdlr");
    if (!mdia || !hdlr || fourcc(moov, hdlr.start + 8) !== "soun") continue;
    const mdhd = child(moov, mdia, "mdhd");
    const tkhd = child(moov, trak, "tkhd");
    const stbl = (() => {
      const minf = child(moov, mdia, "minf");
      return minf && child(moov, minf, "stbl");
    })();
    const stsd = stbl && child(moov, stbl, "stsd");
    if (!mdhd || !tkhd || !stbl || !stsd) return null;
    const timescale = moov.getUint8(mdhd.start) === 1 ? moov.getUint32(mdhd.start + 20) : moov.getUint32(mdhd.start + 12);
    const trackId = moov.getUint8(tkhd.start) === 1 ? moov.getUint32(tkhd.start + 20) : moov.getUint32(tkhd.start + 12);
    const sampleDescription = new Uint8Array(moov.buffer, moov.byteOffset + stsd.start - 8, stsd.end - stsd.start + 8).slice();
    if (timescale === 0) return null;
    const stsz = child(moov, stbl, "stsz");
    // A plain file says how many samples it has: the table is made that size at once.
    const table = new SampleTable(timescale, Math.min(MAX_SAMPLES, Math.max(1024, stsz ? moov.getUint32(stsz.start + 8) : 0)));
    readPlainSamples(moov, stbl, table);
    if (fragments.length) readFragmentSamples(moov, whole, fragments, trackId, table);
    if (table.count === 0) return null;
    return { timescale, sampleDescription, ...table.done() };
  }
  return null;
}

function fourcc(view: DataView, at: number): string {
  return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
}

/** Grows typed arrays as samples are found (a fragmented file says its count only at the end). */
class SampleTable {
  count = 0;
  offsets: Float64Array;
  sizes: Uint32Array;
  times: Float64Array;
  durations: Uint32Array;
  constructor(
    readonly timescale: number,
    capacity: number,
  ) {
    this.offsets = new Float64Array(capacity);
    this.sizes = new Uint32Array(capacity);
    this.times = new Float64Array(capacity);
    this.durations = new Uint32Array(capacity);
  }
  /** `time` and `duration` in the track's timescale units. */
  add(offset: number, size: number, time: number, duration: number): void {
    if (this.count >= MAX_SAMPLES) throw new Error("too many samples");
    if (this.count === this.sizes.length) {
      const grow = <T extends Float64Array | Uint32Array>(array: T): T => {
        const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
        bigger.set(array);
        return bigger;
      };
      this.offsets = grow(this.offsets);
      this.sizes = grow(this.sizes);
      this.times = grow(this.times);
      this.durations = grow(this.durations);
    }
    this.offsets[this.count] = offset;
    this.sizes[this.count] = size;
    this.times[this.count] = time / this.timescale;
    this.durations[this.count] = duration;
    this.count++;
  }
  done() {
    const n = this.count;
    return { count: n, offsets: this.offsets.subarray(0, n), sizes: this.sizes.subarray(0, n), times: this.times.subarray(0, n), durations: this.durations.subarray(0, n) };
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
  // Every count is held to what its box can hold: a hostile file cannot make a loop run for ever.
  const entries = (box: Box, header: number, width: number) => Math.max(0, Math.floor((box.end - box.start - header) / width));
  const fixedSize = view.getUint32(stsz.start + 4);
  const count = Math.min(view.getUint32(stsz.start + 8), fixedSize === 0 ? entries(stsz, 12, 4) : MAX_SAMPLES);
  if (count === 0) return;
  const sizeOf = (index: number) => (fixedSize !== 0 ? fixedSize : view.getUint32(stsz.start + 12 + index * 4));
  const chunks = stco ? Math.min(view.getUint32(stco.start + 4), entries(stco, 8, 4)) : Math.min(view.getUint32(co64!.start + 4), entries(co64!, 8, 8));
  const chunkOffset = (index: number) => (stco ? view.getUint32(stco.start + 8 + index * 4) : Number(view.getBigUint64(co64!.start + 8 + index * 8)));
  const runs = Math.min(view.getUint32(stsc.start + 4), entries(stsc, 8, 12));
  const timeRuns = Math.min(view.getUint32(stts.start + 4), entries(stts, 8, 8));
  let timeRun = 0;
  let timeLeft = timeRuns ? view.getUint32(stts.start + 8) : 0;
  let delta = timeRuns ? view.getUint32(stts.start + 12) : 0;
  let time = 0;
  let sample = 0;
  for (let run = 0; run < runs && sample < count; run++) {
    const base = stsc.start + 8 + run * 12;
    const firstChunk = view.getUint32(base) - 1;
    const lastChunk = run + 1 < runs ? view.getUint32(base + 12) - 1 : chunks;
    const perChunk = view.getUint32(base + 4);
    for (let chunk = firstChunk; chunk < lastChunk && chunk < chunks && sample < count; chunk++) {
      let offset = chunkOffset(chunk);
      for (let inChunk = 0; inChunk < perChunk && sample < count; inChunk++) {
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
}

/** Each `moof`'s `traf` for the track: `tfhd` defaults, `tfdt` time, `trun` samples (ISO/IEC 14496-12 §8.8). */
function readFragmentSamples(moov: DataView, whole: Box, fragments: { at: number; view: DataView }[], trackId: number, table: SampleTable): void {
  let defaultDuration = 0;
  let defaultSize = 0;
  const mvex = child(moov, whole, "mvex");
  if (mvex) {
    for (const trex of children(moov, mvex.start, mvex.end)) {
      if (trex.type === "trex" && moov.getUint32(trex.start + 4) === trackId) {
        defaultDuration = moov.getUint32(trex.start + 12);
        defaultSize = moov.getUint32(trex.start + 16);
      }
    }
  }
  let time = table.count ? Math.round(table.times[table.count - 1]! * table.timescale) + table.durations[table.count - 1]! : 0;
  for (const { at, view } of fragments) {
    const moof: Box = { type: "moof", start: 8, end: view.byteLength };
    for (const traf of children(view, moof.start, moof.end)) {
      if (traf.type !== "traf") continue;
      const tfhd = child(view, traf, "tfhd");
      if (!tfhd || view.getUint32(tfhd.start + 4) !== trackId) continue;
      const flags = view.getUint32(tfhd.start) & 0xffffff;
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
      if (tfdt) time = view.getUint8(tfdt.start) === 1 ? Number(view.getBigUint64(tfdt.start + 4)) : view.getUint32(tfdt.start + 4);
      for (const trun of children(view, traf.start, traf.end)) {
        if (trun.type !== "trun") continue;
        const runFlags = view.getUint32(trun.start) & 0xffffff;
        const count = view.getUint32(trun.start + 4);
        let cursor = trun.start + 8;
        let offset = base;
        if (runFlags & 0x1) {
          offset = base + view.getInt32(cursor);
          cursor += 4;
        }
        if (runFlags & 0x4) cursor += 4;
        for (let index = 0; index < count; index++) {
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

/**
 * Writes samples [first, last) as an M4A: `ftyp`, one `mdat` of their bytes copied from the source
 * as they are (runs of neighbouring samples read in large blocks), and a `moov` describing them as
 * one chunk, their times starting at 0.
 */
export async function writeMp4Piece(source: string, track: Mp4SoundTrack, first: number, last: number, target: string, block: Buffer = Buffer.alloc(COPY_BLOCK_BYTES)): Promise<number> {
  const ftyp = box("ftyp", bytes("M4A "), u32(512), bytes("M4A "), bytes("isom"), bytes("iso2"), bytes("mp41"));
  let payload = 0;
  for (let index = first; index < last; index++) payload += track.sizes[index]!;
  const input = await fs.promises.open(source, "r");
  const output = await fs.promises.open(target, "w", 0o600);
  try {
    let position = 0;
    const write = async (data: Uint8Array) => {
      await output.write(data, 0, data.byteLength, position);
      position += data.byteLength;
    };
    await write(ftyp);
    await write(concat(u32(8 + payload), bytes("mdat")));
    const dataStart = position;
    for (let index = first; index < last; ) {
      // A run of samples that lie one after another in the source is copied in one go.
      const from = track.offsets[index]!;
      let to = from + track.sizes[index]!;
      index++;
      while (index < last && track.offsets[index] === to) to += track.sizes[index++]!;
      for (let at = from; at < to; ) {
        const length = Math.min(block.length, to - at);
        const { bytesRead } = await input.read(block, 0, length, at);
        if (bytesRead !== length) throw new Error("the media file ends before its samples do");
        await write(block.subarray(0, length));
        at += length;
      }
    }
    await write(moovFor(track, first, last, dataStart));
    return position;
  } finally {
    await Promise.all([input.close(), output.close()]);
  }
}

function moovFor(track: Mp4SoundTrack, first: number, last: number, dataStart: number): Uint8Array {
  const count = last - first;
  let duration = 0;
  const stts: number[] = [];
  for (let index = first; index < last; index++) {
    const delta = track.durations[index]!;
    duration += delta;
    if (stts.length && stts[stts.length - 1] === delta) stts[stts.length - 2]!++;
    else stts.push(1, delta);
  }
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
    fullBox("stts", 0, 0, u32(stts.length / 2), ...stts.map(u32)),
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
