import { conceptKey } from "../../concept-key";
import { WordClass } from "./nlp";

/** Every place a candidate key phrase occurs in the prose, grouped by concept key; starts ascend. */
export interface TermOccurrences {
  key: string;
  /** Words (Latin) or segments (CJK) in the phrase. */
  size: number;
  starts: number[];
  ends: number[];
  /** A phrase with a verb in it (损失厌恶, 知识图谱 as jieba tags it): a concept only when it recurs. */
  verbal?: boolean;
  /** The verbs of a Chinese compound (识别 in 实体识别): when none is an everyday verb, it need not recur. */
  verbs?: string[];
  /**
   * A string of adjacent jieba words found by new-word discovery (see cjk-new-words.ts), with its cohesion: how
   * often the note writes it for each time it writes the rarer of its edge words (1: never one without the other).
   */
  coined?: number;
  /** Starts with an adjective ("fresh basil", "large language model"): a concept only when it recurs. */
  modified?: boolean;
  /** Some occurrence ends where its noun phrase ends: "large language" (always before "model") never does. */
  endsPhrase?: boolean;
  /** A single word outside the English lexicon. */
  rare?: boolean;
  /** Chinese: occurrences not inside a longer run of nouns (研究基地 in 大熊猫繁育研究基地 is inside). */
  standalone?: number;
  /** Latin single words: occurrences that are a whole noun phrase (adjectives aside), not part of a compound. */
  alone?: number;
  /** Latin single words: some occurrence starts with a capital (a name, or a sentence's first word). */
  capitalised?: boolean;
  /**
   * A name: Latin words all capitalised with one of them not opening a sentence ("Marcus Aurelius", "Vite",
   * "ETF"), or a word jieba knows as a person, place or organisation (成都, 张骞).
   */
  named?: boolean;
  /** Found only as a repeated word string the tagger's phrases missed (see repeated-phrases.ts): a concept only when it recurs. */
  repeated?: boolean;
}

export type TermIndex = Map<string, TermOccurrences>;

/** The index being filled for one note, with a cache of surface → key for non-trivial surfaces. */
export interface TermSink {
  index: TermIndex;
  keys: Map<string, string>;
}

/** A word (Latin) or segment (CJK) that may be part of a phrase. */
export interface Piece {
  text: string;
  start: number;
  end: number;
  /** Allowed on its own as a one-piece phrase. */
  standsAlone: boolean;
  /** Part of speech: a phrase is a noun phrase (see `isNounPhrase`). */
  cls: WordClass;
  /** A set expression (jieba "l", "i": 完全同意, 吃火锅) read as a noun: a concept only when it recurs. */
  doubtful?: boolean;
  /** An English word outside the tagger's lexicon: specific ("hallucinations", "matcha"). */
  rare?: boolean;
  /** A single Han character jieba tags as a person's name (李, 王). */
  surname?: boolean;
  /** jieba's "nr" or "vn" (see cjk-terms.ts). */
  tag?: "nr" | "vn";
  /** A proper name by itself: a capitalised word inside a sentence, or jieba's person, place or organisation. */
  named?: boolean;
  /** A Latin word starting with a capital letter (or a capital inside: "iPhone"). */
  titled?: boolean;
}

const MAX_PHRASE_SIZE = 3;
// Chinese compounds run longer in pieces (大熊猫 + 繁育 + 研究 + 基地).
const MAX_CJK_PHRASE_SIZE = 4;
const PLAIN_ASCII = /^[\x20-\x7E]*$/;
const BASIC_HAN = /^[\u4E00-\u9FFF]+$/;

export function createTermSink(): TermSink {
  return { index: new Map(), keys: new Map() };
}

/** Records every 1–3 piece phrase of a run of consecutive usable pieces. */
export function addPhrases(sink: TermSink, pieces: Piece[], joiner: string): void {
  for (let first = 0; first < pieces.length; first++) {
    let surface = "";
    let anyLong = false;
    const maxSize = joiner === "" ? MAX_CJK_PHRASE_SIZE : MAX_PHRASE_SIZE;
    for (let size = 1; size <= maxSize && first + size <= pieces.length; size++) {
      const piece = pieces[first + size - 1]!;
      surface = size === 1 ? piece.text : surface + joiner + piece.text;
      anyLong ||= piece.standsAlone;
      // A phrase needs one piece that could stand alone, so "尤|瓦|尔" or "of it" never qualify.
      // Two single Han characters ending in a noun may be a word jieba does not know (抹 + 茶).
      const unknownWord = joiner === "" && size === 2 && piece.cls === WordClass.Noun;
      if (size === 1 ? !piece.standsAlone : !anyLong && !unknownWord) continue;
      // A Chinese verb alone may be a noun jieba's dictionary tags as a verb (睡眠, 褪黑素): it must recur (verbal).
      const nominalVerb = joiner === "" && size === 1 && piece.cls === WordClass.Verb;
      if (!nominalVerb && !isNounPhrase(pieces, first, size, joiner === "")) continue;
      const term = addOccurrence(sink, surface, size, pieces[first]!.start, piece.end);
      if (term && (piece.cls === WordClass.Verb || pieces[first]!.cls === WordClass.Verb || hasDoubtful(pieces, first, size))) {
        term.verbal = true;
        if (size > 1 && !hasDoubtful(pieces, first, size)) term.verbs ??= pieces.slice(first, first + size).filter((at) => at.cls === WordClass.Verb).map((at) => at.text);
      }
      if (term && size > 1 && pieces[first]!.cls === WordClass.Modifier) term.modified = true;
      if (term && pieces[first + size]?.cls !== WordClass.Noun) term.endsPhrase = true;
      if (term && size === 1 && piece.rare) term.rare = true;
      if (term && isName(pieces, first, size, joiner === "")) term.named = true;
      if (term && size === 1 && joiner === " ") {
        const before = pieces[first - 1];
        if ((!before || before.cls === WordClass.Modifier) && !pieces[first + 1]) term.alone = (term.alone ?? 0) + 1;
        const initial = piece.text.charCodeAt(0);
        if ((initial >= 65 && initial <= 90) || (initial >= 0x80 && /^\p{Lu}/u.test(piece.text))) term.capitalised = true;
      }
      if (term && joiner === "" && size > 1) {
        // A verbal noun after it is what is done to it (心率区间 + 训练, 知识图谱 + 构建), not part of its name.
        const after = pieces[first + size];
        const inside = pieces[first - 1]?.cls === WordClass.Noun || (after?.cls === WordClass.Noun && after.tag !== "vn");
        term.standalone = (term.standalone ?? 0) + (inside ? 0 : 1);
      }
    }
  }
}

/** One named piece, or Latin words all capitalised with one of them named: "Marcus Aurelius" opening a sentence too. */
function isName(pieces: Piece[], first: number, size: number, chinese: boolean): boolean {
  if (chinese) return size === 1 && pieces[first]!.named === true;
  let named = false;
  for (let at = first; at < first + size; at++) {
    if (!pieces[at]!.titled) return false;
    named ||= pieces[at]!.named === true;
  }
  return named;
}

/**
 * A concept is a noun or a noun phrase: modifiers then a noun ("large language model", 大语言模型);
 * in Chinese also verb + noun (知识 + 图谱, which jieba tags "v" + "n"), noun + verb (损失 + 厌恶) and
 * adjective + verb (快 + 思考), the last two concepts only when they recur (see `verbal`).
 */
function isNounPhrase(pieces: Piece[], first: number, size: number, chinese = false): boolean {
  const last = pieces[first + size - 1]!.cls;
  if (size === 1) return last === WordClass.Noun;
  // A lone Han name character before a noun is a surname, not a modifier: 李 + 建议.
  if (pieces[first]!.surname) return false;
  if (chinese) {
    // A name ("nr") is a concept of its own: 艾宾浩斯 + 遗忘曲线 is Ebbinghaus's forgetting curve, two concepts. And
    // jieba tags a word it does not know as a name: inside a compound that is mostly a clause's verb or adverb
    // (程度 + 远高于 + 收益, 人 + 宁可 + 错过机会).
    for (let at = first; at < first + size; at++) if (pieces[at]!.tag === "nr") return false;
    // A verbal noun before a longer noun phrase is a verb and its object: 评估 + 大 + 语言 + 模型.
    if (size >= 3 && pieces[first]!.tag === "vn") return false;
  }
  // A name after a common noun is in apposition, not part of it: "his son Commodus", "the city Kyoto".
  if (!chinese) for (let at = first + 1; at < first + size; at++) if (pieces[at]!.named && !pieces[at - 1]!.titled) return false;
  for (let at = first + 1; at < first + size - 1; at++) if (pieces[at]!.cls === WordClass.Verb) return false;
  const head = pieces[first]!.cls;
  if (last === WordClass.Noun) return head !== WordClass.Verb || size === 2;
  return size === 2 && (head === WordClass.Noun || (chinese && head === WordClass.Modifier)) && last === WordClass.Verb;
}

function hasDoubtful(pieces: Piece[], first: number, size: number): boolean {
  for (let at = first; at < first + size; at++) if (pieces[at]!.doubtful) return true;
  return false;
}

export function addOccurrence(sink: TermSink, surface: string, size: number, start: number, end: number): TermOccurrences | undefined {
  const { index } = sink;
  const key = termKey(sink.keys, surface);
  if (key.length === 0) return undefined;
  let entry = index.get(key);
  if (!entry) {
    entry = { key, size, starts: [], ends: [] };
    index.set(key, entry);
  }
  entry.starts.push(start);
  entry.ends.push(end);
  return entry;
}

function termKey(cache: Map<string, string>, surface: string): string {
  // Plain ASCII words and basic Han already are their own key (no NFKC change, no edge punctuation).
  if (PLAIN_ASCII.test(surface)) return surface.toLowerCase();
  if (BASIC_HAN.test(surface)) return surface;
  let key = cache.get(surface);
  if (key === undefined) {
    key = conceptKey(surface);
    cache.set(surface, key);
  }
  return key;
}

/** "neural networks" counts as "neural network" when the note uses both (English plural -s / -es / -ies). */
export function mergePlurals(index: TermIndex): void {
  const plurals: TermOccurrences[] = [];
  for (const term of index.values()) {
    const { key } = term;
    // Keys ending in a lowercase "s" after a letter, but not "-ss", "-us", "-is" (glass, corpus, analysis).
    if (key.charCodeAt(key.length - 1) !== 115 || !/[a-z]s$/.test(key) || /(?:ss|us|is)$/.test(key)) continue;
    plurals.push(term);
  }
  for (const term of plurals) {
    const singular = singularOf(index, term);
    if (!singular) continue;
    const merged = [
      ...singular.starts.map((start, at) => [start, singular.ends[at]!] as const),
      ...term.starts.map((start, at) => [start, term.ends[at]!] as const),
    ].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    singular.starts = merged.map(([start]) => start);
    singular.ends = merged.map(([, end]) => end);
    if (term.alone) singular.alone = (singular.alone ?? 0) + term.alone;
    if (term.capitalised) singular.capitalised = true;
    index.delete(term.key);
  }
}

function singularOf(index: TermIndex, plural: TermOccurrences): TermOccurrences | undefined {
  const { key } = plural;
  const candidates = [key.slice(0, -1), key.endsWith("es") ? key.slice(0, -2) : "", key.endsWith("ies") ? `${key.slice(0, -3)}y` : ""];
  for (const candidate of candidates) {
    const singular = candidate ? index.get(candidate) : undefined;
    if (singular && singular.size === plural.size) return singular;
  }
  return undefined;
}
