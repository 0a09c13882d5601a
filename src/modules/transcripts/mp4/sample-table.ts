import { TranscriptError } from "../transcript-error";
import { type BlockReader, type Box, child, children, damaged, holds } from "./boxes";

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

/** Held in the table (24 bytes each, 24 MiB in all): 5.9 hours of 48 kHz AAC, twice the default STT_MAX_MINUTES. */
export const MAX_SAMPLES = 1_000_000;

/**
 * Grows typed arrays as samples are found (a fragmented file says its count only at the end). Every
 * sample must lie in the file, after the one before it; past `keepSeconds` samples only move the
 * track's end, so the table's size follows STT_MAX_MINUTES, not the file.
 */
export class SampleTable {
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
export function readPlainSamples(view: DataView, stbl: Box, table: SampleTable): void {
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
export async function readFragmentSamples(moov: DataView, root: Box, reader: BlockReader, fragments: Float64Array, trackId: number, table: SampleTable): Promise<void> {
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
