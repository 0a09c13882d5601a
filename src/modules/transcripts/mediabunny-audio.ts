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
import fs from "node:fs";
import type { AudioFile, PiecePlan } from "./audio-file";
import { MAX_SAMPLES } from "./mp4/sample-table";
import { TranscriptError } from "./transcript-error";

/**
 * Recordings in other containers than MP4 (MP3, WAV, Ogg, WebM, FLAC, ADTS), through mediabunny's
 * demuxers: the packets' times and sizes, and each piece's packets copied into an M4A by its muxer.
 */
export async function openWithMediabunny(file: string, { keepSeconds = Infinity }: { keepSeconds?: number } = {}): Promise<AudioFile> {
  const input = new Input({ source: new FilePathSource(file), formats: ALL_FORMATS });
  try {
    if (!(await input.canRead())) throw new TranscriptError("the media is not a recording this server can read (MP4, M4A, MP3, WAV, Ogg, WebM, FLAC, AAC)");
    const track = await input.getPrimaryAudioTrack();
    if (!track) throw new TranscriptError("the media has no sound track");
    if (!(await track.getCodec())) throw new TranscriptError("the media's sound is in a codec this server cannot read");
    const times: number[] = [];
    const sizes: number[] = [];
    let end = 0;
    let bytes = 0;
    for await (const packet of new EncodedPacketSink(track).packets(undefined, undefined, { metadataOnly: true })) {
      if (times.length >= MAX_SAMPLES) throw new TranscriptError(`the recording has more than ${MAX_SAMPLES} sound packets in the part to transcribe`);
      times.push(packet.timestamp);
      sizes.push(packet.byteLength);
      bytes += packet.byteLength;
      end = Math.max(end, packet.timestamp + packet.duration);
      // The first packet past what is transcribed ends the last piece. The rest are not read (mediabunny's
      // computeDuration indexes every frame: 225 MiB for a file of a million tiny ones): the length is
      // the one the file's metadata gives, else about what its size makes at the bitrate so far.
      if (packet.timestamp > times[0]! + keepSeconds) {
        const told = await input.getDurationFromMetadata().catch(() => null);
        const { size } = await fs.promises.stat(file);
        end = Math.max(end, told ?? times[0]! + ((end - times[0]!) * size) / Math.max(1, bytes));
        break;
      }
    }
    return { times: Float64Array.from(times), sizes: Uint32Array.from(sizes), end, write: (piece, target) => writeWithMediabunny(track, piece, target), close: () => input.dispose() };
  } catch (error) {
    input.dispose();
    if (error instanceof TranscriptError) throw error;
    throw new TranscriptError("the media file is damaged or not a recording", { cause: error });
  }
}

async function writeWithMediabunny(track: InputAudioTrack, piece: PiecePlan, file: string): Promise<void> {
  const codec = await track.getCodec();
  const config = await track.getDecoderConfig();
  if (!codec || !config) throw new TranscriptError("the media's sound is in a codec this server cannot read");
  const format = new Mp4OutputFormat({ fastStart: false });
  if (!format.getSupportedAudioCodecs().includes(codec)) {
    throw new TranscriptError(`the media's sound (${codec}) cannot be put in an M4A without re-encoding`);
  }
  const output = new Output({ format, target: new FilePathTarget(file) });
  const source = new EncodedAudioPacketSource(codec);
  output.addAudioTrack(source);
  await output.start();
  const sink = new EncodedPacketSink(track);
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
