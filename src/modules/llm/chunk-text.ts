/** A piece of the note text sent in one API call; `start` is its offset in the whole text. */
export interface TextChunk {
  start: number;
  text: string;
}

/** Moves `index` back by one if it would cut a surrogate pair in two. */
export function codePointBoundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  const splitsPair = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  return splitsPair ? index - 1 : index;
}

/** Cuts `text` to at most `max` UTF-16 units without leaving half a surrogate pair. */
export function truncateText(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, codePointBoundary(text, max));
}

// Preferred cut points, best first: before a Markdown heading, after a blank line, after a line
// break, after a sentence, after any whitespace.
const BOUNDARIES: RegExp[] = [/\n(?=#{1,6}[ \t])/g, /\n[ \t]*\n/g, /\n/g, /[.!?。！？][ \t]*/g, /\s/g];

/**
 * Splits the text into contiguous chunks of at most `maxChars` units, cutting at the best boundary
 * in the second half of each window so every chunk keeps whole sections or paragraphs where it can.
 * The chunks concatenate back to `text`.
 */
export function splitIntoChunks(text: string, maxChars: number): TextChunk[] {
  const chunks: TextChunk[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    const end = cutPoint(text, start, start + maxChars);
    chunks.push({ start, text: text.slice(start, end) });
    start = end;
  }
  if (start < text.length || chunks.length === 0) chunks.push({ start, text: text.slice(start) });
  return chunks;
}

function cutPoint(text: string, start: number, limit: number): number {
  const floor = start + Math.floor((limit - start) / 2);
  const window = text.slice(floor, limit);
  for (const boundary of BOUNDARIES) {
    let last = -1;
    for (const match of window.matchAll(boundary)) last = match.index + match[0].length;
    if (last > 0) return codePointBoundary(text, floor + last);
  }
  const hard = codePointBoundary(text, limit);
  return hard > start ? hard : limit;
}
