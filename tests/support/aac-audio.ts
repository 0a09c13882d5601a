import { BufferTarget, EncodedAudioPacketSource, EncodedPacket, FilePathTarget, Mp4OutputFormat, Output } from "mediabunny";

/**
 * A real AAC-LC recording in an MP4/M4A, written without an encoder: every frame is the silent
 * mono frame players use for gaps (hls.js `getSilentFrame`), followed by 4 bytes that say when it
 * is on the recording's clock (in ms; decoders stop at the frame's END element and skip them). The
 * stand-in transcription server reads those bytes to know which stretch of speech a piece holds.
 */
const SILENT_MONO_FRAME = [0x00, 0xc8, 0x00, 0x80, 0x23, 0x80];
/** AudioSpecificConfig of AAC-LC mono: object type 2, the rate's index, 1 channel. */
const RATE_INDEX: Record<number, number> = { 44100: 4, 16000: 8, 8000: 11 };
const audioSpecificConfig = (rate: number) => {
  const bits = (2 << 11) | (RATE_INDEX[rate]! << 7) | (1 << 3);
  return new Uint8Array([bits >> 8, bits & 0xff]);
};

export interface RecordingOptions {
  seconds: number;
  /** Extra bytes in each frame (past its END element): makes the file as large as a real one of that bitrate. */
  padding?: number;
  /** Where it starts on its own clock (a file cut out of a longer one). */
  offsetSeconds?: number;
  /** 8000 (default: few frames, small files), 16000 or 44100 (as real video soundtracks are). */
  sampleRate?: 8000 | 16000 | 44100;
  /** A fragmented MP4 (`moof`/`mdat` pairs), as Bilibili's DASH audio streams (`.m4s`) are. */
  fragmented?: boolean;
}

async function writeRecording(target: BufferTarget | FilePathTarget, { seconds, padding = 0, offsetSeconds = 0, sampleRate = 8000, fragmented = false }: RecordingOptions): Promise<void> {
  const FRAME_SECONDS = 1024 / sampleRate;
  const output = new Output({ format: new Mp4OutputFormat({ fastStart: fragmented ? "fragmented" : false, minimumFragmentDuration: 10 }), target });
  const source = new EncodedAudioPacketSource("aac");
  output.addAudioTrack(source);
  await output.start();
  const frames = Math.ceil(seconds / FRAME_SECONDS);
  for (let index = 0; index < frames; index++) {
    const data = new Uint8Array(SILENT_MONO_FRAME.length + 4 + padding);
    data.set(SILENT_MONO_FRAME);
    new DataView(data.buffer).setUint32(SILENT_MONO_FRAME.length, Math.round((offsetSeconds + index * FRAME_SECONDS) * 1000));
    const packet = new EncodedPacket(data, "key", index * FRAME_SECONDS, FRAME_SECONDS);
    // Not awaited one by one: the muxer queues them, and the writes are what takes time.
    const added = source.add(packet, index === 0 ? { decoderConfig: { codec: "mp4a.40.2", numberOfChannels: 1, sampleRate, description: audioSpecificConfig(sampleRate) } } : undefined);
    if (index % 512 === 0) await added;
  }
  await output.finalize();
}

export async function recordingFile(file: string, options: RecordingOptions): Promise<void> {
  await writeRecording(new FilePathTarget(file), options);
}

export async function recordingBytes(options: RecordingOptions): Promise<Uint8Array<ArrayBuffer>> {
  const target = new BufferTarget();
  await writeRecording(target, options);
  return new Uint8Array(target.buffer!);
}

/** When a frame of such a recording is on the clock it was cut from (seconds). */
export function frameTime(data: Uint8Array): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(SILENT_MONO_FRAME.length) / 1000;
}

/** The same recording as raw AAC in ADTS frames (a `.aac` file: no MP4 container), 8 kHz mono. */
export function adtsRecording(seconds: number): Uint8Array<ArrayBuffer> {
  const frames = Math.ceil(seconds / (1024 / 8000));
  const length = 7 + SILENT_MONO_FRAME.length + 4;
  const out = new Uint8Array(frames * length);
  const view = new DataView(out.buffer);
  for (let index = 0; index < frames; index++) {
    const at = index * length;
    // syncword, MPEG-4, no CRC; AAC LC, 8 kHz (index 11), 1 channel; frame length; buffer fullness 0x7FF.
    out.set([0xff, 0xf1, 0x6c, 0x40 | (length >> 11), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc], at);
    out.set(SILENT_MONO_FRAME, at + 7);
    view.setUint32(at + 7 + SILENT_MONO_FRAME.length, Math.round(index * (1024 / 8000) * 1000));
  }
  return out;
}
