import { addCjkTerms, type CjkRun, NAME_DOT } from "./cjk-terms";
import type { TextSpan } from "../../extraction";
import { type Nlp, type TaggedWord, WordClass } from "./nlp";
import { STOPWORDS } from "./stopwords";
import { addRepeatedPhrases, type ScannedWord } from "./repeated-phrases";
import { addOccurrence, addPhrases, createTermSink, mergePlurals, type Piece, type TermIndex, type TermSink } from "./term-index";

export type { TermIndex, TermOccurrences } from "./term-index";

const MAX_WORD_LENGTH = 40;
const NUMBER = /^[\d.,'’-]+(?:st|nd|rd|th|s|k|m|x|%)?$/i;
const UPPERCASE_WORD = /^[\p{Lu}\p{N}]+$/u;
const ROMAN_NUMERAL = /^[IVXLC]{1,5}$/;

const enum CharKind {
  Unknown = 0,
  Space,
  Newline,
  /** A letter or digit outside CJK: starts and continues a word. */
  Word,
  /** A combining mark: continues a word. */
  Mark,
  /** Han, kana, 々, ー: read by the segmenter. */
  Cjk,
  /** Punctuation, symbols, anything else: ends a phrase. */
  Other,
}

// Classifying by regex is slow; each UTF-16 unit is classified once per process.
const KINDS = new Uint8Array(0x10000);
const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u30FC]$/u;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const MARK_CHAR = /^\p{M}$/u;

function kindOf(text: string, index: number): CharKind {
  const unit = text.charCodeAt(index);
  const known = KINDS[unit]!;
  if (known !== CharKind.Unknown) return known;
  // Both halves of a surrogate pair take the kind of the whole code point (not cached).
  if (unit >= 0xd800 && unit <= 0xdbff) return classify(String.fromCodePoint(text.codePointAt(index) ?? unit));
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const high = text.charCodeAt(index - 1);
    return high >= 0xd800 && high <= 0xdbff ? classify(String.fromCodePoint(text.codePointAt(index - 1) ?? unit)) : CharKind.Other;
  }
  const kind = classify(String.fromCharCode(unit));
  KINDS[unit] = kind;
  return kind;
}

function classify(char: string): CharKind {
  if (char === "\n") return CharKind.Newline;
  if (/^\s$/.test(char)) return CharKind.Space;
  if (CJK_CHAR.test(char)) return CharKind.Cjk;
  if (WORD_CHAR.test(char)) return CharKind.Word;
  if (MARK_CHAR.test(char)) return CharKind.Mark;
  return CharKind.Other;
}

/**
 * Candidate key phrases, nouns and noun phrases only: 1–3 word runs between stopwords, verbs, adverbs,
 * numbers and punctuation (Latin and other spaced scripts, tagged by wink-nlp), and 1–3 segment runs
 * of jieba words (Chinese; a lone segment needs two characters). Transliterated names joined by "·"
 * (尤瓦尔·赫拉利) are candidates as a whole.
 */
export function collectTerms(prose: string, from: number, to: number, nlp: Nlp, verbs: TextSpan[] = []): TermIndex {
  const english = nlp.tagEnglish(prose.slice(0, Math.min(to, prose.length)));
  for (const word of english.values()) if (word.cls === WordClass.Verb && word.start >= from) verbs.push({ start: word.start, end: word.end });
  const sink = createTermSink();
  const cjkRuns: CjkRun[] = [];
  // "系统1": a small number right after Chinese names the word before it, as "System 1" does.
  const numberedCjk: { at: number; end: number }[] = [];
  let run: Piece[] = [];
  // Every Latin word in reading order, undefined where punctuation, a paragraph's end or CJK breaks a phrase.
  const scanned: (ScannedWord | undefined)[] = [];
  const flush = (): void => {
    if (run.length > 0) addPhrases(sink, run, " ");
    run = [];
  };
  const end = Math.min(to, prose.length);
  let position = from;
  while (position < end) {
    const kind = kindOf(prose, position);
    if (kind === CharKind.Space || (kind === CharKind.Newline && !paragraphEndsAt(prose, position, end))) {
      // A single line break is a soft wrap inside a paragraph: "large language\nmodels" is one phrase.
      position++;
    } else if (kind === CharKind.Cjk) {
      flush();
      scanned.push(undefined);
      const runEnd = scanWhile(prose, position, end, CharKind.Cjk);
      // A lone character can form no candidate, unless it is part of a "·" name.
      if (runEnd - position > 1 || NAME_DOT.test(prose[runEnd] ?? "") || NAME_DOT.test(prose[position - 1] ?? "")) {
        cjkRuns.push({ start: position, end: runEnd });
      }
      position = runEnd;
    } else if (kind === CharKind.Word) {
      const wordEnd = scanWord(prose, position, end);
      const token = prose.slice(position, wordEnd);
      scanned.push({ text: token, start: position, end: wordEnd });
      // "System 1", "tram 28": a small number naming the noun before it (not a quantity of the noun after it).
      const named = run[run.length - 1];
      // A capitalised noun is named by its number whatever follows ("System 1 answering"); a lowercase one unless a noun it counts follows.
      if (SMALL_NUMBER.test(token) && named?.cls === WordClass.Noun && named.end + 1 === position && (/^\p{Lu}/u.test(named.text) || !nounFollows(prose, wordEnd, end, english))) {
        run.push({ text: token, start: position, end: wordEnd, standsAlone: false, cls: WordClass.Noun });
        flush();
        position = wordEnd;
        continue;
      }
      if (SMALL_NUMBER.test(token) && cjkRuns.at(-1)?.end === position && !counts(prose[wordEnd] ?? "")) {
        numberedCjk.push({ at: position, end: wordEnd });
        position = wordEnd;
        continue;
      }
      const nominal = readsAsNoun(token, position, english.get(position), wordEnd, prose, end, english);
      let word = latinWord(token, position, english.get(position), wordEnd, prose, nominal) ?? nameContinuation(token, position, named, prose);
      if (word && agreesAsVerb(word, named, prose, wordEnd, end, english)) word = undefined;
      // A Latin word set in Chinese text (的K8s集群, Kubernetes：) is a name or a term of art, never everyday English.
      if (word && (inChinese(prose, position - 1) || inChinese(prose, wordEnd))) word.rare = true;
      if (word) run.push(word);
      else flush();
      // "Kahneman's book" is two things, not one phrase.
      if (word && word.text.length < token.length) flush();
      position = wordEnd;
    } else {
      flush();
      if (scanned.at(-1) !== undefined) scanned.push(undefined);
      position++;
    }
  }
  flush();
  addRepeatedPhrases(sink, scanned, english);
  addCjkTerms(sink, prose, cjkRuns, nlp, verbs);
  if (numberedCjk.length > 0) addNumberedNames(sink, prose, numberedCjk);
  verbs.sort((a, b) => a.start - b.start);
  mergePlurals(sink.index);
  return sink.index;
}

const FULL_WIDTH_PUNCTUATION = /^[\u3000-\u303F\uFF01-\uFF0F\uFF1A-\uFF20]$/u;

function inChinese(prose: string, at: number): boolean {
  if (at < 0 || at >= prose.length) return false;
  const unit = prose.charCodeAt(at);
  // ASCII (the common neighbour: a space) needs no lookup.
  if (unit < 0x80) return false;
  return kindOf(prose, at) === CharKind.Cjk || FULL_WIDTH_PUNCTUATION.test(prose[at]!);
}

const THIRD_PERSON = /^[a-z]{2,}[^su\W]s$/;
const PLURAL_SUBJECT = /^(?:[a-z]{2,}[^su\W]s|\p{Lu}{2,}s)$/u;
const BASE_FORM = /^[a-z]{2,}[^s\W]$/;
const DETERMINER = /^(?:the|a|an|its|their|his|her|our|my|your|this|that|these|those|every|each|some|no|any|more|less)$/i;

/**
 * A singular noun then a word in "-s" that the tagger read as a plural noun, followed by what a verb
 * takes (an object, a determiner, an adjective): subject and verb, not one phrase. "the question shifts
 * the answer", "repetition fights forgetting", but "knowledge graphs are" and "vector databases." stay.
 */
function agreesAsVerb(word: Piece, previous: Piece | undefined, prose: string, wordEnd: number, end: number, english: Map<number, TaggedWord>): boolean {
  if (!previous || word.cls !== WordClass.Noun || previous.cls !== WordClass.Noun || previous.end + 1 !== word.start || word.rare) return false;
  let next = wordEnd;
  while (next < end && prose[next] === " ") next++;
  if (next === wordEnd) return false;
  const following = english.get(next);
  if (!following) return false;
  const determiner = DETERMINER.test(prose.slice(next, following.end));
  // "LLMs answer fluently", "transformers train so well": a plural subject, a verb's base form, then an adverb or an object.
  if (PLURAL_SUBJECT.test(previous.text) && BASE_FORM.test(word.text)) return determiner || following.cls === WordClass.Other;
  if (!THIRD_PERSON.test(word.text) || /s$/i.test(previous.text)) return false;
  return following.cls === WordClass.Noun || following.cls === WordClass.Modifier || determiner;
}

/**
 * A capitalised word right after a capitalised noun continues a name whatever the tagger calls it:
 * "Japan Rail Pass", "JR Pass" ("Pass" alone reads as a verb).
 */
function nameContinuation(token: string, start: number, previous: Piece | undefined, prose: string): Piece | undefined {
  if (!previous || previous.cls !== WordClass.Noun || previous.end + 1 !== start || prose[previous.end] !== " ") return undefined;
  if (!/^[A-Z][a-z]+$/.test(token) || !/^[A-Z]/.test(previous.text) || STOPWORDS.has(token.toLowerCase())) return undefined;
  return { text: token, start, end: start + token.length, standsAlone: false, cls: WordClass.Noun, titled: true, named: true };
}

/** A blank line (or the end) follows this line break, or it ends a heading. */
function paragraphEndsAt(prose: string, newline: number, end: number): boolean {
  let lineStart = prose.lastIndexOf("\n", newline - 1) + 1;
  while (prose[lineStart] === " ") lineStart++;
  if (prose[lineStart] === "#") return true;
  let next = newline + 1;
  while (next < end && (prose[next] === " " || prose[next] === "\t" || prose[next] === "\r")) next++;
  return next >= end || prose[next] === "\n";
}

const SMALL_NUMBER = /^\d{1,3}$/;
// A number followed by a Han character other than a conjunction or particle counts something: 3个, 10公里, 2024年.
const QUANTIFIED = /^[\p{Script=Han}]$/u;
const NOT_A_COUNTER = new Set([..."和与或是的跟及、"]);

function counts(next: string): boolean {
  return QUANTIFIED.test(next) && !NOT_A_COUNTER.has(next);
}

/** Each one-segment Chinese noun right before a naming number becomes a name with it: 系统 + 1 → 系统1. */
function addNumberedNames(sink: TermSink, prose: string, numbered: { at: number; end: number }[]): void {
  const numberEnd = new Map(numbered.map(({ at, end }) => [at, end]));
  const found: { start: number; end: number }[] = [];
  for (const term of sink.index.values()) {
    if (term.size !== 1) continue;
    term.ends.forEach((end, index) => {
      const after = numberEnd.get(end);
      if (after !== undefined) found.push({ start: term.starts[index]!, end: after });
    });
  }
  for (const { start, end } of found.sort((a, b) => a.start - b.start)) addOccurrence(sink, prose.slice(start, end), 2, start, end);
}

function nounFollows(prose: string, from: number, end: number, english: Map<number, TaggedWord>): boolean {
  let next = from;
  while (next < end && prose[next] === " ") next++;
  const cls = english.get(next)?.cls;
  return cls === WordClass.Noun || cls === WordClass.Modifier;
}

function scanWhile(text: string, start: number, end: number, kind: CharKind): number {
  let position = start;
  while (position < end && kindOf(text, position) === kind) position++;
  return position;
}

/** A word: letters, digits and marks, with single ' ’ . - inside ("don't", "Node.js", "coin-flip"). */
function scanWord(text: string, start: number, end: number): number {
  let position = start + 1;
  while (position < end) {
    const kind = kindOf(text, position);
    if (kind === CharKind.Word || kind === CharKind.Mark) {
      position++;
      continue;
    }
    const char = text[position];
    const joins = char === "'" || char === "’" || char === "." || char === "-";
    if (joins && position + 1 < end && kindOf(text, position + 1) === CharKind.Word) {
      position += 2;
      continue;
    }
    break;
  }
  return position;
}

// A capital first ("Vite", "ETF") or inside ("iPhone", "useState", "Neo4j" aside).
const TITLED = /^\p{Lu}|^\p{Ll}+\p{Lu}/u;
// What may stand between a sentence's end (or a line's start) and its first word: spaces, Markdown markers, quotes, a list number.
const BEFORE_FIRST_WORD = /(?:[.!?。！？|]|\n)[ \t]*(?:[-*+>#]+[ \t]*|\d{1,3}[.)][ \t]*)*[*_"'“‘(\[「]*$/u;
const LOOK_BACK = 24;
const MAX_TITLE_LINE = 200;

/**
 * Whether a word opens a sentence, a list item, a table cell or a line whose words are all capitalised
 * (a Title Case title or heading): there a capital says nothing about a name.
 */
function opensSentence(prose: string, start: number): boolean {
  const from = Math.max(0, start - LOOK_BACK);
  if (BEFORE_FIRST_WORD.test((from === 0 ? "\n" : "") + prose.slice(from, start))) return true;
  // A title or heading is short: the line is looked for within MAX_TITLE_LINE characters either side, so a
  // long line costs each of its words a bounded search, not a scan of the whole line (quadratic on 1 MiB).
  const windowStart = Math.max(0, start - MAX_TITLE_LINE);
  const before = prose.slice(windowStart, start).lastIndexOf("\n");
  if (before < 0 && windowStart > 0) return false;
  const lineStart = before < 0 ? 0 : windowStart + before + 1;
  const after = prose.slice(start, lineStart + MAX_TITLE_LINE + 1).indexOf("\n");
  const lineEnd = after < 0 ? Math.min(prose.length, lineStart + MAX_TITLE_LINE + 1) : start + after;
  return lineEnd - lineStart <= MAX_TITLE_LINE && isTitleCaseLine(prose.slice(lineStart, lineEnd));
}

const LONG_WORD = /\p{L}{4,}/gu;

function isTitleCaseLine(line: string): boolean {
  const words = line.match(LONG_WORD);
  return words !== null && words.length >= 2 && words.every((word) => TITLED.test(word));
}

// A determiner before a word makes it a noun whatever the tagger says: "an embedding vector", "the forgetting curve".
const AFTER_DETERMINER = /(?:^|[^\p{L}])(?:a|an|the|this|that|these|those|its|their|our|my|your|his|her|each|every)\s+$/iu;

function latinWord(token: string, start: number, tagged: TaggedWord | undefined, wordEnd: number, prose = "", nominal = false): Piece | undefined {
  const apostrophe = token[token.length - 2];
  const possessive = (apostrophe === "'" || apostrophe === "’") && (token.endsWith("s") || token.endsWith("S"));
  const text = possessive ? token.slice(0, -2) : token;
  if (text.length < 2 || text.length > MAX_WORD_LENGTH) return undefined;
  if (STOPWORDS.has(text.toLowerCase())) return undefined;
  const first = text.charCodeAt(0);
  if (first >= 48 && first <= 57 && NUMBER.test(text)) return undefined;
  // Roman numerals ("Part II") are numbering, not names.
  const standsAlone = (text.length >= 3 || UPPERCASE_WORD.test(text)) && !ROMAN_NUMERAL.test(text);
  let cls = nominal ? WordClass.Noun : wordClass(tagged, wordEnd, token);
  if (cls === WordClass.Verb && text.endsWith("ing") && AFTER_DETERMINER.test(prose.slice(Math.max(0, start - 8), start))) cls = WordClass.Noun;
  // Verbs, adverbs, pronouns and numbers end a noun phrase, as stopwords do.
  if (cls === WordClass.Verb || cls === WordClass.Other || cls === WordClass.Auxiliary) return undefined;
  const titled = TITLED.test(text);
  const named = titled && cls === WordClass.Noun && !opensSentence(prose, start);
  return { text, start, end: start + text.length, standsAlone, cls, ...(tagged?.rare && { rare: true }), ...(titled && { titled }), ...(named && { named }) };
}

const GERUND = /^\p{L}[\p{Ll}-]*\p{Ll}{2}ing$/u;
// A form of "be" before an "-ing" word makes it a progressive verb ("is searing").
const BE_BEFORE = /(?:^|[^\p{L}'’])(?:am|is|are|was|were|be|been|being|['’]s|['’]re|['’]m)\s+$/iu;
const OBJECT_PRONOUN = /^(?:it|them|him|her|me|us|you|this|that|these|those)$/i;

/**
 * Where grammar makes a word a noun whatever the tagger says: an "-ing" word that no form of "be" precedes and
 * no object follows is a gerund ("stock picking rarely wins", "before searing,", "avoid overwatering"; not "is
 * searing the steak"), and a hyphenated compound the tagger split that no noun follows is the head of its
 * phrase ("cache-aside", "read-your-writes"), not a modifier ("non-professional actors").
 */
function readsAsNoun(token: string, start: number, tagged: TaggedWord | undefined, wordEnd: number, prose: string, end: number, english: Map<number, TaggedWord>): boolean {
  if (!tagged) return false;
  const split = tagged.end < wordEnd;
  // A split word is a modifier by default (wordClass), whatever its first part's tag.
  const hyphenated = split && token.includes("-") && !/[.\d]|^\p{Lu}/u.test(token);
  const gerund = !split && GERUND.test(token) && (tagged.cls === WordClass.Verb || tagged.cls === WordClass.Modifier);
  if (!hyphenated && !gerund) return false;
  let next = wordEnd;
  while (next < end && prose[next] === " ") next++;
  const following = english.get(next);
  if (following?.cls === WordClass.Noun || (hyphenated && following?.cls === WordClass.Modifier)) return false;
  if (hyphenated && !GERUND.test(token)) return true;
  if (BE_BEFORE.test(prose.slice(Math.max(0, start - 10), start))) return false;
  const word = following ? prose.slice(next, following.end) : "";
  return !DETERMINER.test(word) && !OBJECT_PRONOUN.test(word);
}

/** A word the tagger split ("retrieval-augmented", "Node.js") modifies what follows unless it looks like a name. */
function wordClass(tagged: TaggedWord | undefined, wordEnd: number, token: string): WordClass {
  if (!tagged) return WordClass.Noun;
  if (tagged.end >= wordEnd || /^[A-Z]|[.\d]/.test(token)) return tagged.end >= wordEnd ? tagged.cls : WordClass.Noun;
  return WordClass.Modifier;
}
