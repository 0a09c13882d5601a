import { STOPWORDS } from "./stopwords";
import { addOccurrence, type TermOccurrences, type TermSink } from "./term-index";

/** A jieba word of a Chinese run, as the new-word finder needs it. */
export interface TaggedSegment {
  text: string;
  start: number;
  /** jieba's part-of-speech tag. */
  pos?: string;
  /** Not part of a run (the newline joining runs, a blank): nothing crosses it. */
  isBreak?: boolean;
}

// A new word is at most this many characters: 布隆过滤器, 陈胜吴广起义 (longer strings are phrases, read as such).
const MAX_NEW_WORD_CHARS = 6;
// ...and at most this many of jieba's pieces: 股 + 四头 + 肌.
const MAX_WORD_PIECES = 4;

// Closed classes (ICTCLAS tags) that glue a clause, never a word's edge: particles, prepositions, conjunctions,
// pronouns, modal and interjection words, onomatopoeia, punctuation, numerals and quantities (一年, 两万). Adverbs
// too when a single character (就, 都, 很): a longer one is often jieba's guess for a word it half knows (随机, 极度).
const GRAMMAR_TAG = /^(?:u|p|c|r|y|e|o|w|x|m)/;
const GRAMMAR_SINGLE_TAG = /^d/;
const HAN = /^\p{Script=Han}+$/u;
// Outside any run: the left neighbour of a run's first word, the right one of its last.
const EDGE = "";

/**
 * Unsupervised new-word discovery inside one note: jieba without HMM splits a word its dictionary lacks
 * (老班章 → 老 + 班 + 章, 互斥锁 → 互斥 + 锁, 过拟合 → 过 + 拟合). A string of two to four adjacent jieba
 * words, none of them grammar at its edges, is a candidate word. Said twice or more in the note, it is kept
 * only where its edges are free (two different neighbours on each side, or the run's edge): where one
 * neighbour always follows, the longer string is the unit. Said once, it is kept too, so the corpus can
 * count the notes that write it (a concept only when another note does, see `selectKeyPhrases`).
 * Each kept candidate records its cohesion (see `TermOccurrences.coined`), which the ranking thresholds.
 */
export function addNewWords(sink: TermSink, segments: TaggedSegment[]): void {
  if (segments.length < 2) return;
  const pieceCounts = new Map<string, number>();
  for (const segment of segments) if (!segment.isBreak) pieceCounts.set(segment.text, (pieceCounts.get(segment.text) ?? 0) + 1);
  const candidates = new Map<string, Candidate>();
  for (let first = 0; first < segments.length; first++) {
    const head = segments[first]!;
    if (head.isBreak || (isGrammar(head) && !opensWord(head)) || !HAN.test(head.text)) continue;
    let chars = head.text.length;
    for (let last = first + 1; last < segments.length && last - first < MAX_WORD_PIECES; last++) {
      const tail = segments[last]!;
      chars += tail.text.length;
      // A grammar word inside breaks it too: 基金的费率, 投了两万 are phrases and clauses, not words.
      if (tail.isBreak || chars > MAX_NEW_WORD_CHARS || !HAN.test(tail.text) || isGrammar(tail)) break;
      const surface = concat(segments, first, last);
      let candidate = candidates.get(surface);
      if (!candidate) {
        const left = neighbour(segments, first - 1, true);
        const right = neighbour(segments, last + 1, false);
        candidate = { starts: [], left, right, leftFree: left === EDGE, rightFree: right === EDGE, edgeCount: Math.min(pieceCounts.get(head.text)!, pieceCounts.get(tail.text)!) };
        candidates.set(surface, candidate);
      } else {
        candidate.leftFree ||= neighbour(segments, first - 1, true) !== candidate.left;
        candidate.rightFree ||= neighbour(segments, last + 1, false) !== candidate.right;
      }
      candidate.starts.push(head.start);
    }
  }
  const existing = new Set<TermOccurrences>(sink.index.values());
  for (const [surface, candidate] of candidates) {
    const count = candidate.starts.length;
    if (count >= 2 && (!candidate.leftFree || !candidate.rightFree)) continue;
    const known = sink.index.get(surface);
    // A phrase the grammar already reads (大熊猫 + 基地) keeps its own standing.
    if (known && existing.has(known)) continue;
    let term: TermOccurrences | undefined;
    for (const start of candidate.starts) term = addOccurrence(sink, surface, 1, start, start + surface.length);
    if (!term) continue;
    term.coined = count / candidate.edgeCount;
  }
}

interface Candidate {
  starts: number[];
  /** The first occurrence's neighbours (EDGE for none). */
  left: string;
  right: string;
  /** Free at that edge: some occurrence has no neighbour there, or two have different ones (the string is not always part of one longer string). */
  leftFree: boolean;
  rightFree: boolean;
  /** How often the rarer of its edge words occurs in the note, as a word of its own or inside this candidate. */
  edgeCount: number;
}

// jieba reads a word's first character as an aspect particle or a locative when its dictionary lacks the word:
// 过 + 拟合, 前 + 向 + 传播, 下 + 西洋. Such a character may open a candidate (recurrence and cohesion decide),
// never end one (训练中, 书上).
const OPENING_TAG = /^(?:ug|f)$/;

function opensWord(segment: TaggedSegment): boolean {
  return segment.text.length === 1 && OPENING_TAG.test(segment.pos ?? "");
}

function isGrammar(segment: TaggedSegment): boolean {
  if (STOPWORDS.has(segment.text) || GRAMMAR_TAG.test(segment.pos ?? "")) return true;
  return segment.text.length === 1 && GRAMMAR_SINGLE_TAG.test(segment.pos ?? "");
}

function concat(segments: TaggedSegment[], first: number, last: number): string {
  let surface = "";
  for (let at = first; at <= last; at++) surface += segments[at]!.text;
  return surface;
}

/**
 * The character next to a candidate: the last of the word before it, or the first after it; EDGE at a run's
 * edge or next to a grammar word (的, 和, 是), which is never part of a word: 典型的过拟合, 出现过拟合.
 */
function neighbour(segments: TaggedSegment[], at: number, before: boolean): string {
  const segment = segments[at];
  if (!segment || segment.isBreak || isGrammar(segment)) return EDGE;
  return before ? segment.text[segment.text.length - 1]! : segment.text[0]!;
}
