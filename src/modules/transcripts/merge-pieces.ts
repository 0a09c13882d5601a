import type { SpeechSegment } from "../llm/speech-to-text";

/** One piece's answer, its times already moved onto the recording's clock. */
export interface PieceTranscript {
  /** Where the piece's audio starts and ends on the recording's clock. */
  start: number;
  end: number;
  /** Where this piece's own stretch begins: before it, the previous piece heard the same audio. */
  from: number;
  /** Null for an untimed answer (the server refused verbose_json). */
  segments: SpeechSegment[] | null;
  text: string;
}

/** A segment that ends this close to its piece's end was probably cut off there. */
const CUT_MARGIN_SECONDS = 1;

/**
 * Joins the pieces into one transcript on one clock, each moment once. Where two pieces overlap, a
 * sentence cut at the end of the earlier piece is dropped when the later piece heard it whole
 * (it began inside the overlap); the later piece's sentences that the earlier one already holds,
 * and one cut at its own start, are dropped. Untimed pieces become one segment each.
 */
export function mergePieces(pieces: PieceTranscript[]): SpeechSegment[] {
  const merged: SpeechSegment[] = [];
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index]!;
    const next = pieces[index + 1];
    let segments = piece.segments ?? (piece.text ? [{ start: piece.from, end: piece.end, text: piece.text }] : []);
    if (next?.segments && piece.segments) {
      // A trailing sentence cut by this piece's end, which the next piece heard from its start.
      segments = segments.filter((segment) => !(segment.end >= piece.end - CUT_MARGIN_SECONDS && segment.start >= next.start));
    }
    const heardUpTo = merged.at(-1)?.end ?? -Infinity;
    for (const segment of segments) {
      if (index > 0 && piece.segments) {
        // Cut at this piece's own start: the previous piece heard it whole.
        if (segment.start <= piece.start + 0.05 && piece.start < piece.from) continue;
        // Already held by the previous piece (its middle lies in what was kept).
        if ((segment.start + segment.end) / 2 < heardUpTo) continue;
      }
      merged.push(segment);
    }
  }
  return merged;
}
