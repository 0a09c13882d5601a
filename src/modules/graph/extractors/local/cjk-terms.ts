import { chineseClass, EVERYDAY_NAME_TAG, type Nlp, WordClass } from "./nlp";
import type { TextSpan } from "../../extraction";
import { STOPWORDS } from "./stopwords";
import { addNewWords } from "./cjk-new-words";
import { addOccurrence, addPhrases, type Piece, type TermOccurrences, type TermSink } from "./term-index";

/** The "·" (or Japanese "・") between parts of a transliterated name. */
export const NAME_DOT = /[·・]/;
const HAN_NUMERAL = /^[零〇一二三四五六七八九十百千万亿两几第]+$/u;

// One segmenter for the process: building one loads ICU dictionaries, reusing it is cheap.
let sharedSegmenter: Intl.Segmenter | undefined;
function segmenter(): Intl.Segmenter {
  sharedSegmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  return sharedSegmenter;
}

/** A stretch of Han or kana characters in the prose. */
export interface CjkRun {
  start: number;
  end: number;
}

interface Segment {
  text: string;
  /** Characters (code points), so an astral ideograph counts once. */
  chars: number;
  start: number;
  usable: boolean;
  isNameDot: boolean;
  cls: WordClass;
  /** jieba's tag (Chinese segments); "" for a break between runs. */
  pos?: string;
  isBreak?: boolean;
  doubtful?: boolean;
  surname?: boolean;
  /** jieba's tag, where the phrase grammar needs it: "nr" (a name, or jieba's guess for a word it does not know), "vn" (a verbal noun). */
  tag?: "nr" | "vn";
  /** jieba calls it a person, place or organisation (and the IDF table does not call it everyday). */
  named?: boolean;
  /** A single content character (see `isLooseCharacter`): jieba's dictionary had no longer word for it and its neighbours. */
  loose?: boolean;
}

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const JAPANESE_WORD = /^(?:[\p{Script=Katakana}\u30FC]{2,}|[\p{Script=Han}\u3005]{2,})$/u;

/**
 * Candidate terms of the note's CJK runs: Chinese through one jieba call (words with part of speech,
 * see `tagRuns`), Japanese (runs with kana) through Intl.Segmenter, and names joined by "·". Also
 * records the Chinese verbs that can label a relation.
 */
export function addCjkTerms(sink: TermSink, prose: string, runs: CjkRun[], nlp: Nlp, verbs: TextSpan[]): void {
  if (runs.length === 0) return;
  const chinese = runs.filter((run) => !KANA.test(prose.slice(run.start, run.end)));
  const japanese = runs.filter((run) => KANA.test(prose.slice(run.start, run.end)));
  const tagged = tagRuns(prose, chinese, nlp);
  addPieces(sink, tagged);
  addUnknownWords(sink, tagged);
  addNewWords(sink, tagged);
  addVerbs(tagged, verbs);
  // jieba cannot read kana: Japanese runs keep only katakana words and kanji compounds, as nouns.
  addPieces(sink, segmentRuns(prose, japanese).map((segment) => ({ ...segment, usable: segment.usable && JAPANESE_WORD.test(segment.text) })));
  // Names joined by "·" are rebuilt from Intl.Segmenter's single characters (jieba's HMM guesses split them badly).
  const dotted = runs.filter((run) => NAME_DOT.test(prose[run.end] ?? "") || NAME_DOT.test(prose[run.start - 1] ?? ""));
  if (dotted.length > 0) addDottedNames(sink, prose, segmentRuns(prose, dotted));
}

// Aspect particles stay with their verb in a label: 写了, 看过.
const ASPECT = new Set(["了", "过", "着"]);

/** Chinese verbs of two or more characters (one-character verbs are mostly 是/有/去), with an aspect particle after them. */
function addVerbs(segments: Segment[], verbs: TextSpan[]): void {
  segments.forEach((segment, index) => {
    if (segment.cls !== WordClass.Verb || (segment.chars < 2 && !ASPECT.has(segments[index + 1]?.text ?? ""))) return;
    const next = segments[index + 1];
    const end = next && ASPECT.has(next.text) && next.start === segment.start + segment.text.length ? next.start + next.text.length : segment.start + segment.text.length;
    verbs.push({ start: segment.start, end });
  });
}

function addPieces(sink: TermSink, segments: Segment[]): void {
  let pieces: Piece[] = [];
  for (const segment of segments) {
    if (!segment.usable) {
      if (pieces.length > 0) addPhrases(sink, pieces, "");
      pieces = [];
      continue;
    }
    const { text, start } = segment;
    pieces.push({ text, start, end: start + text.length, standsAlone: segment.chars >= 2, cls: segment.cls, ...(segment.doubtful && { doubtful: true }), ...(segment.surname && { surname: true }), ...(segment.tag && { tag: segment.tag }), ...(segment.named && { named: true }) });
  }
  if (pieces.length > 0) addPhrases(sink, pieces, "");
}

/** Every Chinese run of the note through one jieba call, runs joined by a newline (a word never crosses it). */
function tagRuns(prose: string, runs: CjkRun[], nlp: Nlp): Segment[] {
  if (runs.length === 0) return [];
  const segments: Segment[] = [];
  const offsets: number[] = [];
  let length = 0;
  for (const run of runs) {
    offsets.push(length);
    length += run.end - run.start + 1;
  }
  let runIndex = 0;
  let at = 0;
  for (const { word, tag } of nlp.tagChinese(runs.map((run) => prose.slice(run.start, run.end)).join("\n"))) {
    const wordStart = at;
    at += word.length;
    while (runIndex + 1 < runs.length && wordStart >= offsets[runIndex + 1]!) runIndex++;
    const start = runs[runIndex]!.start + wordStart - offsets[runIndex]!;
    // The newline between runs (or any blank) breaks a phrase.
    if (word.includes("\n") || word.trim() === "") {
      segments.push({ text: word, chars: 1, start, usable: false, isNameDot: false, cls: WordClass.Other, pos: "", isBreak: true });
      continue;
    }
    const cls = chineseClass(tag, word);
    const usable = cls !== WordClass.Other && !STOPWORDS.has(word) && !HAN_NUMERAL.test(word) && !isDegreeOrComplement(word);
    const chars = word.length === 1 ? 1 : [...word].length;
    segments.push({
      text: word,
      chars,
      start,
      usable,
      isNameDot: false,
      cls,
      pos: tag,
      isBreak: false,
      ...(DOUBTFUL_TAGS.has(tag) && { doubtful: true }),
      ...(chars === 1 && tag.startsWith("nr") && { surname: true }),
      ...(tag === "nr" || tag === EVERYDAY_NAME_TAG ? { tag: "nr" as const } : tag === "vn" ? { tag } : {}),
      ...(chars >= 2 && PROPER_NOUN_TAGS.has(tag) && { named: true }),
      ...(chars === 1 && isLooseCharacter(word, tag, nlp) && { loose: true }),
    });
  }
  return segments;
}

// Content tags (ICTCLAS): nouns, verbs, adjectives, abbreviations, morphemes, distinguishing words, places, times.
// Particles, prepositions, conjunctions, pronouns, adverbs, numerals, measure words and locatives are grammar; but a
// character tagged a numeral that is no digit (余, 半, 整: "over", "half", "whole") also writes names and words (余华).
const CONTENT_TAG = /^[nvajzgbst]/;
// jieba's IDF below this: the few hundred commonest characters (是, 有, 说, 看, 做), which glue clauses, not word parts.
const GRAMMAR_CHARACTER_IDF = 4.5;

function isLooseCharacter(word: string, tag: string, nlp: Nlp): boolean {
  return (CONTENT_TAG.test(tag) || (tag === "m" && !HAN_NUMERAL.test(word))) && /^\p{Script=Han}$/u.test(word) && (nlp.chineseIdf(word) ?? Infinity) >= GRAMMAR_CHARACTER_IDF;
}

// An out-of-dictionary word is at most this many characters (深蹲, 腘绳肌, 优衣库, 高杠深蹲).
const UNKNOWN_WORD_CHARS = 4;

/**
 * Without HMM jieba splits a word its dictionary lacks into single characters (深/a 蹲/v, 优/n 衣/n 库/n).
 * Every two to four adjacent loose characters are a candidate word, doubtful: a concept only when the note
 * or another note says it again, which a chance pair of characters rarely does.
 */
function addUnknownWords(sink: TermSink, segments: Segment[]): void {
  const found: { surface: string; start: number; end: number }[] = [];
  for (let at = 0; at < segments.length; ) {
    if (!segments[at]!.loose) {
      at++;
      continue;
    }
    let end = at;
    while (end < segments.length && segments[end]!.loose && segments[end]!.start === segments[at]!.start + (end - at)) end++;
    for (let first = at; first < end - 1; first++) {
      for (let last = first + 1; last < end && last - first < UNKNOWN_WORD_CHARS; last++) {
        const start = segments[first]!.start;
        const stop = segments[last]!.start + segments[last]!.text.length;
        found.push({ surface: segments.slice(first, last + 1).map((segment) => segment.text).join(""), start, end: stop });
      }
    }
    at = end;
  }
  // The phrase reader may have found the same span already (拿/v 铁/n is a verb and its noun): once is enough.
  const touched = new Map<TermOccurrences, Set<number>>();
  for (const { surface, start, end } of found) {
    const existing = sink.index.get(surface);
    const seen = existing && (touched.get(existing) ?? new Set(existing.starts));
    if (seen?.has(start)) continue;
    const term = addOccurrence(sink, surface, 1, start, end);
    if (!term) continue;
    term.verbal = true;
    if (!touched.has(term)) touched.set(term, seen ?? new Set());
    touched.get(term)!.add(start);
  }
  // Occurrences were appended after the phrase reader's: put each touched term's back in order.
  for (const term of touched.keys()) {
    const order = term.starts.map((start, index) => [start, term.ends[index]!] as const).sort((a, b) => a[0] - b[0]);
    term.starts = order.map(([start]) => start);
    term.ends = order.map(([, end]) => end);
  }
}

// Words jieba's dictionary tags as nouns although they grade or complete a predicate: 太久, 比较严重,
// 辣得. Inside a phrase they glue a clause together (排队太久, 商业化比较严重), so they break it.
const DEGREE_ADVERB = /^[太很挺超更最蛮]/u;
const GRADABLE = /^[久小大多少慢快好差高低长短远近贵累难]$/u;
const COMPLEMENT_NOUNS = new Set(["心得", "所得"]);
function isDegreeOrComplement(word: string): boolean {
  if (word.length === 2 && DEGREE_ADVERB.test(word) && GRADABLE.test(word[1]!)) return true;
  if (word.length > 2 && word.startsWith("比较")) return true;
  return word.length === 2 && word.endsWith("得") && !COMPLEMENT_NOUNS.has(word);
}

// jieba's people, places and organisations.
const PROPER_NOUN_TAGS = new Set(["nr", "nrfg", "nrt", "ns", "nt"]);

// jieba's set expressions and idioms: sometimes a term (昼夜节律), often a clause (完全同意, 吃火锅); and its time
// words: sometimes an era (唐朝), often a time of day (早上).
const DOUBTFUL_TAGS = new Set(["l", "i", "t"]);

function segmentRuns(prose: string, runs: CjkRun[]): Segment[] {
  const parts: string[] = [];
  const offsets: number[] = [];
  let length = 0;
  runs.forEach((run, at) => {
    offsets.push(length);
    parts.push(prose.slice(run.start, run.end));
    length += run.end - run.start;
    const next = runs[at + 1];
    if (!next) return;
    const dotted = next.start === run.end + 1 && NAME_DOT.test(prose[run.end] ?? "");
    parts.push(dotted ? "·" : "\n");
    length++;
  });
  const segments: Segment[] = [];
  let runIndex = 0;
  for (const segment of segmenter().segment(parts.join(""))) {
    while (runIndex + 1 < runs.length && segment.index >= offsets[runIndex + 1]!) runIndex++;
    const run = runs[runIndex]!;
    const text = segment.segment;
    const start = run.start + segment.index - offsets[runIndex]!;
    const usable = segment.isWordLike === true && !STOPWORDS.has(text) && !HAN_NUMERAL.test(text);
    const chars = text.length === 1 ? 1 : [...text].length;
    segments.push({ text, chars, start, usable, isNameDot: text === "·", cls: WordClass.Noun });
  }
  return segments;
}

/**
 * "尤瓦尔·赫拉利": the segmenter splits unknown transliterations into single characters, so a name
 * is rebuilt around each "·" from single-character segments (up to four a side) or one dictionary
 * word; it needs two single characters in all, so "学习·深度" in a list is not a name.
 */
function addDottedNames(sink: TermSink, prose: string, segments: Segment[]): void {
  for (let at = 0; at < segments.length; at++) {
    if (!segments[at]!.isNameDot) continue;
    const before = namePart(segments, at, -1);
    let after = namePart(segments, at, 1);
    if (before.count === 0 || after.count === 0) continue;
    let end = at + after.count;
    let singles = before.singles + after.singles;
    // Chained parts: 列奥纳多·达·芬奇.
    while (segments[end + 1]?.isNameDot) {
      after = namePart(segments, end + 1, 1);
      if (after.count === 0) break;
      singles += after.singles;
      end += 1 + after.count;
    }
    if (singles >= 2) {
      const start = segments[at - before.count]!.start;
      const last = segments[end]!;
      addOccurrence(sink, prose.slice(start, last.start + last.text.length), 2, start, last.start + last.text.length);
    }
    at = end;
  }
}

const NAME_PART_LENGTH = 4;

/** How many usable segments next to the dot (direction -1 before, 1 after) form one part of a name. */
function namePart(segments: Segment[], dot: number, direction: 1 | -1): { count: number; singles: number } {
  let count = 0;
  let length = 0;
  for (let at = dot + direction; at >= 0 && at < segments.length; at += direction) {
    const segment = segments[at]!;
    const single = segment.chars === 1;
    if (!segment.usable || length + segment.chars > NAME_PART_LENGTH) break;
    // A dictionary word is a whole part ("亚当"); it never joins single characters.
    if (!single && count > 0) break;
    count++;
    length += segment.chars;
    if (!single) break;
  }
  return { count, singles: length === count ? count : 0 };
}

/** The word-like segments of a CJK string, as the key phrase reader sees them. */
export function cjkWords(text: string): string[] {
  const words: string[] = [];
  for (const segment of segmenter().segment(text)) if (segment.isWordLike) words.push(segment.segment);
  return words;
}
