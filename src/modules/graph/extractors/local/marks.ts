import type { TextSpan } from "../../extraction";
import type { MaskedText } from "./markdown-mask";

/** A piece of explicit markup in the note: the author said "this is a thing". */
export interface Mark {
  /** "name": set apart by typography other than Markdown emphasis (typography.ts). */
  kind: "hashtag" | "wikilink" | "strong" | "emphasis" | "code" | "work" | "name";
  /** The marked words as written (for a wikilink, the target). */
  text: string;
  span: TextSpan;
  /** A wikilink's display text. */
  alias?: string;
}

// Not after a word character, "&" (entities), "/" or "\" (paths), "[" ([[#heading]]) or another "#".
const HASHTAG = /(?<![\p{L}\p{N}\p{M}_&#/\\[])#([\p{L}\p{N}_][\p{L}\p{N}\p{M}_\-/]{0,59})/gu;
const NUMBER_LIKE = /^\d+(?:st|nd|rd|th|k|m|px|em|rem|x)?$/i;
const HEX_COLOUR = /^(?=[a-f]*\d)(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const WIKILINK = /\[\[([^[\]\n|#^]{1,200})(?:[#^][^[\]\n|]{0,200})?(?:\|([^[\]\n]{1,200}))?\]\]/g;
const FILE_LIKE = /\.(?:png|jpe?g|gif|svg|webp|pdf|mp[34]|mov|wav|zip|canvas|excalidraw)$/i;
const STRONG = /\*\*(?=[^\s*])([^*\n]{1,100}?)(?<=[^\s*])\*\*|(?<![\p{L}\p{N}_])__(?=[^\s_])([^_\n]{1,100}?)(?<=[^\s_])__(?![\p{L}\p{N}_])|==(?=[^\s=])([^=\n]{1,100}?)(?<=[^\s=])==/gu;
// Chinese title marks name a work (book, film, article, law): 《思考，快与慢》, 《原则》.
const WORK_TITLE = /《([^《》\n]{1,40})》/gu;
const EMPHASIS = /(?<![*\p{L}\p{N}\\])\*(?=[^\s*])([^*\n]{1,60}?)(?<=[^\s*])\*(?![*\p{L}\p{N}])/gu;

export function findMarks(masked: MaskedText, text: string, contentStart: number): Mark[] {
  const marks: Mark[] = [];
  const { prose } = masked;
  for (const match of matchesFrom(prose, HASHTAG, contentStart)) {
    const tag = (match[1] ?? "").replace(/[-/_]+$/, "");
    if (!/\p{L}/u.test(tag) || NUMBER_LIKE.test(tag) || HEX_COLOUR.test(tag)) continue;
    marks.push({ kind: "hashtag", text: tag, span: { start: match.index + 1, end: match.index + 1 + tag.length } });
  }
  for (const match of matchesFrom(prose, WIKILINK, contentStart)) {
    const raw = match[1] ?? "";
    const target = raw.trim();
    if (target.length === 0 || FILE_LIKE.test(target)) continue;
    const start = match.index + 2 + (raw.length - raw.trimStart().length);
    const alias = match[2]?.trim();
    marks.push({ kind: "wikilink", text: target, span: { start, end: start + target.length }, ...(alias ? { alias } : {}) });
  }
  for (const match of matchesFrom(prose, STRONG, contentStart)) {
    const inner = match[1] ?? match[2] ?? match[3] ?? "";
    marks.push({ kind: "strong", text: inner, span: { start: match.index + 2, end: match.index + 2 + inner.length } });
  }
  for (const match of matchesFrom(prose, EMPHASIS, contentStart)) {
    const inner = match[1] ?? "";
    marks.push({ kind: "emphasis", text: inner, span: { start: match.index + 1, end: match.index + 1 + inner.length } });
  }
  // From the start: a title's 《人类简史》 names the work too.
  for (const match of matchesFrom(prose, WORK_TITLE, 0)) {
    const inner = (match[1] ?? "").trim();
    if (!/\p{L}/u.test(inner)) continue;
    const start = match.index + 1 + (match[1]!.length - match[1]!.trimStart().length);
    marks.push({ kind: "work", text: inner, span: { start, end: start + inner.length } });
  }
  for (const span of masked.inlineCode) marks.push({ kind: "code", text: text.slice(span.start, span.end), span });
  return marks;
}

function* matchesFrom(text: string, pattern: RegExp, from: number): Generator<RegExpExecArray> {
  const regex = new RegExp(pattern.source, pattern.flags);
  regex.lastIndex = from;
  for (let match = regex.exec(text); match; match = regex.exec(text)) yield match;
}
