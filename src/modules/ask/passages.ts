/** A part of a note that can answer a question: `text === content.slice(start, end)` (UTF-16 offsets). */
export interface PassageSpan {
  start: number;
  end: number;
}

/** About the most a passage holds; long paragraphs are cut into sentence windows under it. */
export const MAX_PASSAGE_UNITS = 1000;
// Sentence windows aim for this much, so a cut paragraph gives passages of readable size.
const WINDOW_UNITS = 600;
// A heading this short (or a line ending in ":") reads as the title of what follows: kept with it.
const LEAD_IN_UNITS = 120;
// A paragraph this short ("Recipe for one loaf.", "参会人：小王") is too little to answer from alone.
const SHORT_UNITS = 60;

const BLANK_LINE = /\n[ \t]*\n\s*/g;
// `[p. N]` (a document's page) and `[picture N](…)` (a picture's text) begin what follows them.
const MARKER = /^(?:\[p\. [^\]\n]{1,24}\](?:\n|$)|\[picture \d{1,6}\]\()/;
// A sentence ends at . ! ? (with closing quotes or brackets) before a space, or at 。！？ or a line break.
const SENTENCE_END = /[.!?]+["'”’)\]]*(?=\s)|[。！？!?；;]+["'”’」』）)]*|\n/g;

/**
 * The note's paragraphs as passages (blank-line separated; a short heading or lead-in line joins the
 * paragraph after it, unless that one starts with a page's or a picture's marker), with long paragraphs cut into windows of whole sentences, and a sentence
 * longer than the limit cut at a space (or anywhere outside a surrogate pair). Surrounding
 * whitespace is left out, so every passage starts and ends on text.
 */
export function splitPassages(content: string): PassageSpan[] {
  const paragraphs: PassageSpan[] = [];
  let from = 0;
  for (const match of content.matchAll(BLANK_LINE)) {
    pushTrimmed(content, paragraphs, from, match.index);
    from = match.index + match[0].length;
  }
  pushTrimmed(content, paragraphs, from, content.length);

  const joined: PassageSpan[] = [];
  let leadIn = false;
  for (const paragraph of paragraphs) {
    const previous = joined.at(-1);
    // Only the paragraph just before is looked at: a joined pair is not itself a lead-in. A page's
    // or a picture's marker starts a passage of its own, so a passage is on one page.
    if (previous && leadIn && !MARKER.test(content.slice(paragraph.start, paragraph.start + 40)) && paragraph.end - previous.start <= MAX_PASSAGE_UNITS) previous.end = paragraph.end;
    else joined.push({ ...paragraph });
    leadIn = isLeadIn(content, paragraph);
  }
  return joined.flatMap((paragraph) => (paragraph.end - paragraph.start <= MAX_PASSAGE_UNITS ? [paragraph] : sentenceWindows(content, paragraph)));
}

function isLeadIn(content: string, span: PassageSpan): boolean {
  if (span.end - span.start > LEAD_IN_UNITS) return false;
  const text = content.slice(span.start, span.end);
  return span.end - span.start <= SHORT_UNITS || /^#{1,6}\s/.test(text) || /[:：]$/.test(text) || !/[.!?。！？]/.test(text);
}

function pushTrimmed(content: string, into: PassageSpan[], start: number, end: number): void {
  while (start < end && /\s/.test(content[start]!)) start++;
  while (end > start && /\s/.test(content[end - 1]!)) end--;
  if (end > start) into.push({ start, end });
}

/** Consecutive sentences of one paragraph, grouped up to about WINDOW_UNITS each. */
function sentenceWindows(content: string, paragraph: PassageSpan): PassageSpan[] {
  const sentences: PassageSpan[] = [];
  const text = content.slice(paragraph.start, paragraph.end);
  let from = 0;
  for (const match of text.matchAll(SENTENCE_END)) {
    const end = match.index + match[0].length;
    for (const piece of hardCuts(content, paragraph.start + from, paragraph.start + end)) pushTrimmed(content, sentences, piece.start, piece.end);
    from = end;
  }
  for (const piece of hardCuts(content, paragraph.start + from, paragraph.end)) pushTrimmed(content, sentences, piece.start, piece.end);

  const windows: PassageSpan[] = [];
  for (const sentence of sentences) {
    const current = windows.at(-1);
    if (current && sentence.end - current.start <= WINDOW_UNITS) current.end = sentence.end;
    else windows.push({ ...sentence });
  }
  return windows;
}

/** A run longer than the limit, cut at its last space before the limit (else at the limit, never inside a surrogate pair). */
function hardCuts(content: string, start: number, end: number): PassageSpan[] {
  const pieces: PassageSpan[] = [];
  while (end - start > MAX_PASSAGE_UNITS) {
    let cut = content.lastIndexOf(" ", start + MAX_PASSAGE_UNITS);
    if (cut <= start + MAX_PASSAGE_UNITS / 2) cut = start + MAX_PASSAGE_UNITS;
    if (isLowSurrogate(content.charCodeAt(cut))) cut--;
    pieces.push({ start, end: cut });
    start = cut;
  }
  pieces.push({ start, end });
  return pieces;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
