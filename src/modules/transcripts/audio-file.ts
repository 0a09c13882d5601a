/**
 * An opened recording: its sound's packet times (seconds) and sizes, and a way to copy a run of
 * packets into an M4A. MP4/M4A files (what video sites serve) are read from their sample tables;
 * other containers (MP3, WAV, Ogg, WebM, FLAC, ADTS) through mediabunny's demuxers.
 */
export interface AudioFile {
  times: Float64Array;
  sizes: Uint32Array;
  /** Where the last packet ends. */
  end: number;
  write(piece: PiecePlan, file: string): Promise<void>;
  close(): void;
}

/** One piece of the recording, on the recording's clock (seconds). */
export interface PiecePlan {
  index: number;
  /** Its first packet, by position in the recording. */
  first: number;
  /** Where the piece's audio starts; from the second piece on, `overlap` seconds before `from`. */
  start: number;
  /** Where this piece's own stretch begins (the previous piece covers up to here). */
  from: number;
  end: number;
  packets: number;
  bytes: number;
}
