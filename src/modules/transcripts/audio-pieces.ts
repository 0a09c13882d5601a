import {
  ALL_FORMATS,
  EncodedAudioPacketSource,
  EncodedPacketSink,
  FilePathSource,
  FilePathTarget,
  Input,
  type InputAudioTrack,
  Mp4OutputFormat,
  Output,
} from "mediabunny";
import { TranscriptError } from "./transcript-error";

/** One piece of the recording, on the recording's clock (seconds). */
export interface PiecePlan {
  index: number;
  /** Where the piece's audio starts; from the second piece on, `overlap` seconds before `from`. */
  start: number;
  /** Where this piece's own stretch begins (the previous piece covers up to here). */
  from: number;
  end: number;
  packets: number;
  bytes: number;
}

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

/** An opened recording: its audio track, read packet by packet from the file (never held whole). */
export interface AudioFile {
  track: InputAudioTrack;
  close(): void;
}

export async function openAudio(file: string): Promise<AudioFile> {
  const input = new Input({ source: new FilePathSource(file), formats: ALL_FORMATS });
  try {
    if (!(await input.canRead())) throw new TranscriptError("the media is not a recording this server can read (MP4, M4A, MP3, WAV, Ogg, WebM, FLAC, AAC)");
    const track = await input.getPrimaryAudioTrack();
    if (!track) throw new TranscriptError("the media has no sound track");
    if (!(await track.getCodec())) throw new TranscriptError("the media's sound is in a codec this server cannot read");
    return { track, close: () => input.dispose() };
  } catch (error) {
    input.dispose();
    if (error instanceof TranscriptError) throw error;
    throw new TranscriptError("the media file is damaged or not a recording", { cause: error });
  }
}

/**
 * Plans the pieces from the packets' times and sizes alone (no packet data is read): stretches of
 * at most `chunkSeconds` on whole multiples of it, so a recording of D seconds takes ⌈D / chunk⌉
 * pieces, cut sooner only where a piece would pass the size cap. Each piece after the first starts
 * `overlap` seconds early, so a sentence cut at one boundary is heard whole in one of the two.
 */
export async function planPieces(audio: AudioFile, options: PiecePlanOptions): Promise<AudioPlan> {
  const sink = new EncodedPacketSink(audio.track);
  const times: number[] = [];
  const sizes: number[] = [];
  let duration = 0;
  for await (const packet of sink.packets(undefined, undefined, { metadataOnly: true })) {
    times.push(packet.timestamp);
    sizes.push(packet.byteLength);
    duration = Math.max(duration, packet.timestamp + packet.duration);
  }
  if (times.length === 0) throw new TranscriptError("the media's sound track is empty");
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
    let packets = 0;
    while (next < times.length && times[next]! < nominalEnd) {
      const size = sizes[next]! + PER_PACKET_BYTES;
      if (bytes + size > budget && next > index) break;
      bytes += size;
      next++;
      packets++;
    }
    if (next <= index) throw new TranscriptError(`one packet of the media is larger than the ${Math.floor(options.maxBytes / 1048576)} MiB upload limit`);
    const end = next < times.length ? times[next]! : duration;
    pieces.push({ index: pieces.length, start: times[begin]!, from, end: truncated ? Math.min(end, limit) : end, packets, bytes: bytes + CONTAINER_BYTES });
    from = end;
    index = next;
  }
  return { pieces, duration: duration - first, truncated };
}

/**
 * Writes one piece as an M4A by copying its packets (no decoding, no re-encoding), its times moved
 * so the piece starts at 0, as a speech-to-text server expects a file to.
 */
export async function writePiece(audio: AudioFile, piece: PiecePlan, file: string): Promise<void> {
  const codec = await audio.track.getCodec();
  const config = await audio.track.getDecoderConfig();
  if (!codec || !config) throw new TranscriptError("the media's sound is in a codec this server cannot read");
  const format = new Mp4OutputFormat({ fastStart: false });
  if (!format.getSupportedAudioCodecs().includes(codec)) {
    throw new TranscriptError(`the media's sound (${codec}) cannot be put in an M4A without re-encoding`);
  }
  const output = new Output({ format, target: new FilePathTarget(file) });
  const source = new EncodedAudioPacketSource(codec);
  output.addAudioTrack(source);
  await output.start();
  const sink = new EncodedPacketSink(audio.track);
  const startPacket = (await sink.getPacket(piece.start)) ?? (await sink.getFirstPacket());
  let written = 0;
  try {
    for await (const packet of sink.packets(startPacket ?? undefined)) {
      if (packet.timestamp < piece.start) continue;
      if (written >= piece.packets) break;
      await source.add(packet.clone({ timestamp: packet.timestamp - piece.start }), written === 0 ? { decoderConfig: config } : undefined);
      written++;
    }
    await output.finalize();
  } catch (error) {
    await output.cancel().catch(() => {});
    throw error;
  }
}
