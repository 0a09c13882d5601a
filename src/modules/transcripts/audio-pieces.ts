import type { AudioFile, PiecePlan } from "./audio-file";
import { openWithMediabunny } from "./mediabunny-audio";
import { readMp4SoundTrack } from "./mp4/read-sound-track";
import type { Mp4SoundTrack } from "./mp4/sample-table";
import { copyBlocks, writeMp4Piece } from "./mp4/write-piece";
import { TranscriptError } from "./transcript-error";

export interface PiecePlanOptions {
  /** STT_CHUNK_SECONDS: no piece is longer (plus its overlap). */
  chunkSeconds: number;
  /** STT_MAX_UPLOAD_MB in bytes: no piece's file is larger. */
  maxBytes: number;
  /** STT_MAX_MINUTES in seconds: audio past it is left out. */
  maxSeconds: number;
  overlapSeconds: number;
}

export interface AudioPlan {
  pieces: PiecePlan[];
  /** The recording's own length. */
  duration: number;
  /** True when it was longer than `maxSeconds` and the pieces stop there. */
  truncated: boolean;
}

/** What an MP4 adds around its samples: boxes, and per sample its size, time and chunk entries. */
const CONTAINER_BYTES = 4096;
const PER_PACKET_BYTES = 16;

/**
 * `keepSeconds` (STT_MAX_MINUTES): packets past it are not kept, so what a recording costs in memory
 * follows what is transcribed of it. An MP4 this cannot read fails here (a TranscriptError) rather
 * than going to mediabunny, which would build an object for each of a hostile file's boxes.
 */
export async function openAudio(file: string, options: { keepSeconds?: number } = {}): Promise<AudioFile> {
  const mp4 = await readMp4SoundTrack(file, options);
  return mp4 ? mp4Audio(file, mp4) : openWithMediabunny(file, options);
}

function mp4Audio(file: string, track: Mp4SoundTrack): AudioFile {
  const blocks = copyBlocks();
  return {
    times: track.times,
    sizes: track.sizes,
    end: track.end,
    write: async (piece, target) => void (await writeMp4Piece(file, track, piece.first, piece.first + piece.packets, target, blocks)),
    close: () => {},
  };
}

/**
 * Plans the pieces from the packets' times and sizes alone (no packet data is read): stretches of
 * at most `chunkSeconds` on whole multiples of it, so a recording of D seconds takes ⌈D / chunk⌉
 * pieces, cut sooner only where a piece would pass the size cap. Each piece after the first starts
 * `overlap` seconds early, so a sentence cut at one boundary is heard whole in one of the two.
 */
export async function planPieces(audio: AudioFile, options: PiecePlanOptions): Promise<AudioPlan> {
  const { times, sizes } = audio;
  if (times.length === 0) throw new TranscriptError("the media's sound track is empty");
  const duration = audio.end;
  const first = times[0]!;
  const limit = first + options.maxSeconds;
  const truncated = duration > limit + 0.5;
  const budget = options.maxBytes - CONTAINER_BYTES;
  const pieces: PiecePlan[] = [];
  let from = first;
  let index = 0;
  while (index < times.length && times[index]! < limit) {
    const start = pieces.length === 0 ? from : Math.max(first, from - options.overlapSeconds);
    let begin = index;
    while (begin > 0 && times[begin - 1]! >= start) begin--;
    const nominalEnd = Math.min(limit, first + (Math.floor((from - first) / options.chunkSeconds + 1e-9) + 1) * options.chunkSeconds);
    let bytes = 0;
    let next = begin;
    while (next < times.length && times[next]! < nominalEnd) {
      const size = sizes[next]! + PER_PACKET_BYTES;
      if (bytes + size > budget && next > index) break;
      bytes += size;
      next++;
    }
    if (next <= index) throw new TranscriptError(`one packet of the media is larger than the ${Math.floor(options.maxBytes / 1048576)} MiB upload limit`);
    const end = next < times.length ? times[next]! : duration;
    pieces.push({ index: pieces.length, first: begin, start: times[begin]!, from, end: truncated ? Math.min(end, limit) : end, packets: next - begin, bytes: bytes + CONTAINER_BYTES });
    from = end;
    index = next;
  }
  return { pieces, duration: duration - first, truncated };
}

/**
 * Writes one piece as an M4A by copying its packets (no decoding, no re-encoding), its times moved
 * so the piece starts at 0, as a speech-to-text server expects a file to.
 */
export function writePiece(audio: AudioFile, piece: PiecePlan, file: string): Promise<void> {
  return audio.write(piece, file);
}
