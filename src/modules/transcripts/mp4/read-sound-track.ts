import fs from "node:fs";
import { TranscriptError } from "../transcript-error";
import { BlockReader, type Box, child, children, damaged, fill, fourcc, holds } from "./boxes";
import { type Mp4SoundTrack, readFragmentSamples, readPlainSamples, SampleTable } from "./sample-table";

export interface Mp4ReadOptions {
  /** Samples this far (seconds) past the first are left out of the table, but for the first one after. */
  keepSeconds?: number;
}

/** Top-level boxes scanned: a DASH stream has two a fragment, so 100,000 fragments (3 hours of 0.1 s ones). */
const MAX_BOXES = 200_000;
/** One `moov` or `moof` is read whole; past this, it is not one we read. */
const MAX_DESCRIPTION_BYTES = 16 * 1024 * 1024;
/** Boxes an ISO BMFF file starts with (mediabunny's own test, and what QuickTime writes first). */
const FIRST_BOXES = new Set(["ftyp", "styp", "moov", "moof", "sidx", "emsg", "prft", "free", "skip", "wide", "mdat"]);

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
