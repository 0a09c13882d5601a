import { conceptKey } from "../../concept-key";
import type { TextSpan } from "../../extraction";
import { type CorpusStats, documentFrequencyOf, inverseDocumentFrequency } from "./corpus";
import { isLayoutLabel } from "./name-shape";
import { WEAK_ALONE_WORDS } from "./stopwords";
import type { TermIndex, TermOccurrences } from "./terms";

export interface KeyPhrase {
  term: TermOccurrences;
  score: number;
}

export interface KeyPhraseInput {
  terms: TermIndex;
  corpus: CorpusStats;
  /** Occurrences of the explicit concepts, by key: those keys are taken, and their words are not free. */
  explicit: ReadonlyMap<string, readonly TextSpan[]>;
  /** Keys of concepts already in the user's graph: reusing them connects notes. */
  existing: ReadonlySet<string>;
  /** The title's concept key, when the title is a topic: the phrases inside it are still free to be concepts. */
  titleKey?: string;
  /** Title and heading text, sorted: a phrase found there is what the note is about. */
  prominent: readonly TextSpan[];
  /** A title's genre label in lenticular brackets (【视频总结】, 【干货】), sorted: what kind of note, not a concept. */
  labels?: readonly TextSpan[];
  budget: number;
  /** A phrase scoring below this share of the note's best one is not kept (LocalParameters.relativeFloor). */
  relativeFloor: number;
  /** A found new word less cohesive than this is a chance string (LocalParameters.newWordCohesion). */
  newWordCohesion: number;
  /** General-language specificity of a one-word term (1 when unknown). */
  specificity: (key: string) => number;
  /** A word general text uses so often (LocalParameters.everydayZipf, everydayIdf) that alone it names nothing. */
  everyday: (key: string) => boolean;
  /** A dictionary word common enough to count one mention a note (LocalParameters.backgroundZipf, backgroundIdf). */
  common: (key: string) => boolean;
}

// Longer phrases name concepts more often than single words do ("gradient descent" vs "gradient").
const SIZE_BOOST = [0, 1, 1.6, 1.8];
const PROMINENT_BOOST = 1.5;
const EXISTING_BOOST = 1.5;
// A phrase other notes use too is what links this note into the graph.
const RECURRING_BOOST = 2;
// A phrase seen once is as likely an accident of word order as a concept.
const SINGLETON_PENALTY = 0.7;
// jieba's IDF 7.4 squared against 10: below it a verb is an everyday one.
const NOMINAL_VERB_SPECIFICITY = 0.55;
// jieba's IDF above about 11.4: a word no everyday text uses, whatever its tag.
const RARE_VERB_SPECIFICITY = 1.3;
// jieba's IDF below about 7: an everyday Chinese noun (系统, 模型, 学习) that a longer name's tail repeats.
const GENERIC_HEAD_SPECIFICITY = 0.5;
// A word the English lexicon lacks is a term of art or a name, not an everyday noun.
const RARE_WORD_BOOST = 1.6;
// The corpus gives it another name (an acronym it defines, a 简称, a surname): it is a name, not a description.
const NAMED_BOOST = 1.5;

/**
 * How many key phrases a note earns: five, and one more per `spacing` characters (a Han character counts as
 * `hanWidth` characters: a Chinese word is one or two of them, an English one five or six letters and a space),
 * never more than `most`.
 */
export function keyPhraseBudget(prose: string, most: number, spacing: number, hanWidth: number): number {
  const han = prose.match(/\p{Script=Han}/gu)?.length ?? 0;
  return Math.min(most, 5 + Math.floor((prose.length + (hanWidth - 1) * han) / spacing));
}

/**
 * The highest TF-IDF phrases that are not explicit concepts already. Term frequency counts only
 * "free" occurrences: "descent" inside a repeated "gradient descent", or "学习" inside the tag
 * "机器学习", is not a separate use. A phrase around a chosen one must recur to be kept too.
 */
export function selectKeyPhrases(input: KeyPhraseInput): KeyPhrase[] {
  const covering = coveringSpans(input);
  // Each key's document frequency is asked for by several rules: worked out once per note.
  const frequencies = new Map<string, number>();
  const frequency = (key: string) => {
    let count = frequencies.get(key);
    if (count === undefined) frequencies.set(key, (count = documentFrequencyOf(input.corpus, key)));
    return count;
  };
  const heads = namedHeads(input, frequency);
  const ranked: (KeyPhrase & { free: number })[] = [];
  for (const term of input.terms.values()) {
    if (input.explicit.has(term.key) || isLayoutLabel(term.key)) continue;
    // A found new word is a word only when it holds together and recurs, in the note or in another (checked first: most do not).
    if (term.coined !== undefined && !isNewWord(term, input, frequency)) continue;
    // So is a word string only found repeated (repeated-phrases.ts), unless it is a name; checked early, as most do not recur.
    if (term.repeated && !term.named && term.starts.length < 2 && frequency(term.key) < 2) continue;
    if (input.labels?.length && term.starts.every((start) => insideAny(input.labels!, start))) continue;
    if (WEAK_ALONE_WORDS.has(term.key)) continue; // also when jieba split it: 评论 + 区
    const prominent = term.starts.some((start) => insideAny(input.prominent, start));
    // An everyday word alone ("money", "plan", 人类) is a concept only where the note makes it its subject (title, heading);
    // capitalised inside a sentence it still may be a title's word ("Plan XVII", "Kind of Blue") when some note writes it in
    // lower case, but a word no note writes so is a name ("Tokyo", "Rome"), as jieba's places and people are.
    const commonWord = !term.named || (LATIN.test(term.key) && (input.corpus.lowercase.has(term.key) || !term.alone));
    if (term.size === 1 && !term.rare && !prominent && commonWord && input.everyday(term.key)) continue;
    // A common English word said once outside a title or heading ("works in any app") is the note's vocabulary, not its
    // subject; repeated, or a name, it may be one. (Chinese keeps such words: jieba's common words include its terms.)
    if (term.size === 1 && term.starts.length < 2 && !term.rare && !term.named && !prominent && LATIN.test(term.key) && input.common(term.key)) continue;
    const free = freeCount(term, covering);
    if (free === 0 || isBoilerplate(input.corpus, term.key)) continue;
    // "the theory" in a note on prospect theory, "System" of "System 1": the longer name's head said again, not a concept of
    // its own, unless the note uses it alone more often than the names it heads ("the dough" of a bread note with one "pizza dough").
    if (term.size === 1 && free <= (heads.get(term.key) ?? 0)) continue;
    const recurs = term.starts.length >= 2 || frequency(term.key) >= 2;
    // A compound whose verbs are no everyday ones (实体 + 识别), or one "verb" rarer than any everyday word: jieba's tag for a noun it half knows (褪黑素, 昼夜节律).
    const technical =
      term.size === 1
        ? input.specificity(term.key) >= RARE_VERB_SPECIFICITY
        : term.verbs?.every((verb) => input.specificity(verb) >= NOMINAL_VERB_SPECIFICITY) === true;
    if (((term.verbal && !technical) || (term.modified && !classifies(term.key))) && !recurs) continue;
    // A verb alone is a concept only when it is no everyday word (睡眠, 复习 yes; 喜欢, 整理 no).
    if (term.verbal && term.size === 1 && input.specificity(term.key) < NOMINAL_VERB_SPECIFICITY) continue;
    // A noun phrase's head comes last: "large language" always followed by "model" is a fragment of a longer one.
    if (term.modified && !term.endsPhrase) continue;
    // So is a Chinese compound only ever seen inside a longer one (研究基地 in 大熊猫繁育研究基地).
    if (term.standalone === 0) continue;
    // An everyday English noun only ever part of longer ones ("graph" of "graph service", "knowledge graph" and
    // "graph database") is not a concept by itself; a name or term of art may be ("Kubernetes migration").
    if (term.size === 1 && !term.alone && !term.rare && !term.capitalised && LATIN.test(term.key)) continue;
    // A Chinese noun with a light tail (决策 + 过程, 学习 + 方式) is the noun itself: the tail names no new concept.
    if (term.size === 2 && HAN.test(term.key) && hasEmptyTail(term.key, input)) continue;
    ranked.push({ term, free, score: scoreTerm(term, free, prominent, input) });
  }
  // On a tie the longer phrase wins ("Fushimi Inari" names the place more fully than "Fushimi"), then the one whose
  // words the user's other notes use ("vector database" in a corpus about vectors and databases, not "refund policy").
  const kinships = new Map<TermOccurrences, number>();
  const kinship = (term: TermOccurrences) => {
    let value = kinships.get(term);
    if (value === undefined) kinships.set(term, (value = wordKinship(term, frequency)));
    return value;
  };
  ranked.sort((a, b) => b.score - a.score || b.term.size - a.term.size || kinship(b.term) - kinship(a.term) || compareKeys(a.term.key, b.term.key));

  const chosen = [...input.explicit.keys()];
  const selected: KeyPhrase[] = [];
  // Relative to the best phrase's own worth: a name the graph already has ranks first, but must not raise the bar for the rest.
  const floor = Math.max(0, ...ranked.map(({ term, score }) => (input.existing.has(term.key) ? score / EXISTING_BOOST : score))) * input.relativeFloor;
  for (const phrase of ranked) {
    if (selected.length >= input.budget || phrase.score < floor) break;
    const { key } = phrase.term;
    // A phrase inside a chosen one ("descent" of "gradient descent") is a concept of its own only where the note also
    // writes it apart, and a phrase around a chosen one ("plants store" around "plants") only where it recurs; unless it
    // is a name, a word no dictionary has, or a phrase other notes use too ("Seville Cathedral" beside "Seville",
    // "kaiseki" beside "kaiseki dinner").
    const standsOwn = phrase.term.named === true || phrase.term.rare === true || frequency(key) >= 2;
    const clashes =
      !standsOwn &&
      chosen.some(
        (other) =>
          (containsPhrase(other, key) && phrase.free < 2 && other !== input.titleKey && !input.explicit.has(other)) ||
          (containsPhrase(key, other) && phrase.term.starts.length < 2),
      );
    if (clashes) continue;
    // "Japan Rail Pass" once "JR Pass" is chosen: the corpus says they are one concept, which takes one place.
    if ((input.corpus.aliases.get(key) ?? []).some((alias) => chosen.includes(conceptKey(alias)))) continue;
    selected.push({ term: phrase.term, score: phrase.score });
    chosen.push(key);
  }
  return selected;
}

const NAMING_NUMBER = /^(.+?) ?\d{1,3}$/u;

/**
 * The head words of the note's own longer names: the last word of an explicit concept or of a phrase
 * the note or the corpus repeats ("prospect theory" → "theory"; 地铁系统 → 系统), and the word a small
 * number names ("System 1" → "system", 系统1 → 系统), each with how often the note writes those names.
 * Head and name are one noun phrase, so the grammar, not a stop list, keeps the bare head out.
 */
function namedHeads(input: KeyPhraseInput, frequency: (key: string) => number): Map<string, number> {
  const heads = new Map<string, number>();
  let uses = 0;
  const add = (head: string) => heads.set(head, (heads.get(head) ?? 0) + uses);
  const generic = (head: string) => input.specificity(head) < GENERIC_HEAD_SPECIFICITY;
  const addHead = (key: string, chinese: boolean) => {
    const last = key.charCodeAt(key.length - 1);
    const numbered = last >= 48 && last <= 57 ? NAMING_NUMBER.exec(key) : null;
    if (numbered && !/ /.test(numbered[1]!) && (!chinese || generic(numbered[1]!))) add(numbered[1]!);
    const space = key.lastIndexOf(" ");
    if (space > 0) {
      // The note's index holds "models" under "model" when it has both: the head counts in both numbers.
      const head = key.slice(space + 1);
      add(head);
      if (/[a-z]s$/.test(head) && !/(?:ss|us|is)$/.test(head)) add(head.endsWith("ies") ? `${head.slice(0, -3)}y` : head.slice(0, -1));
    }
    // Chinese has no spaces: a two- or three-character tail after at least two characters (地铁 + 系统).
    // Only an everyday tail: 上海咖啡 is about 咖啡 as much as about Shanghai.
    else if (chinese) for (const size of [2, 3]) if (key.length - size >= 2 && generic(key.slice(-size))) add(key.slice(-size));
  };
  for (const [key, spans] of input.explicit) {
    uses = Math.max(1, spans.length);
    if (key !== input.titleKey || spans.length > 0) addHead(key, false);
  }
  for (const term of input.terms.values()) {
    if (term.size < 2 || (term.starts.length < 2 && frequency(term.key) < 2)) continue;
    if (term.modified && !term.endsPhrase) continue;
    // "LLMs" in the same note is the large language model named again: "the model" refers to it as often.
    uses = term.starts.length;
    for (const alias of input.corpus.aliases.get(term.key) ?? input.corpus.aliases.get(term.key.replace(/s$/, "")) ?? []) {
      // The note's index holds a plural under its singular when it has both ("LLMs" under "llm").
      const key = conceptKey(alias);
      uses += (input.terms.get(key) ?? input.terms.get(key.replace(/s$/, "")))?.starts.length ?? 0;
    }
    addHead(term.key, HAN.test(term.key));
  }
  return heads;
}

// Light nouns, the closed class that follows any noun and adds nothing to it ("process", "way", "situation", "aspect"),
// as light verbs (进行, 做) add nothing to their object.
const LIGHT_NOUNS = new Set(["过程", "方式", "情况", "方面"]);

function hasEmptyTail(key: string, input: KeyPhraseInput): boolean {
  for (let cut = 2; cut <= key.length - 2; cut++) if (LIGHT_NOUNS.has(key.slice(cut)) && input.terms.has(key.slice(0, cut))) return true;
  return false;
}

/** How many notes use the words of a Latin phrase, summed (0 for a single word or Chinese). */
function wordKinship(term: TermOccurrences, frequency: (key: string) => number): number {
  if (term.size < 2 || !term.key.includes(" ")) return 0;
  let notes = 0;
  for (const word of term.key.split(" ")) notes += frequency(word);
  return notes;
}

function scoreTerm(term: TermOccurrences, free: number, prominent: boolean, input: KeyPhraseInput): number {
  return (
    (1 + Math.log(free)) *
    inverseDocumentFrequency(input.corpus, term.key) *
    (SIZE_BOOST[term.size] ?? 1) *
    (free === 1 && !term.named ? SINGLETON_PENALTY : 1) *
    (prominent ? PROMINENT_BOOST : 1) *
    (input.existing.has(term.key) ? EXISTING_BOOST : 1) *
    (isSpecific(term, input) && documentFrequencyOf(input.corpus, term.key) >= 2 ? RECURRING_BOOST : 1) *
    (term.size === 1 ? (term.rare ? RARE_WORD_BOOST : term.named ? Math.max(1, input.specificity(term.key)) : input.specificity(term.key)) : 1) *
    (input.corpus.aliases.has(term.key) ? NAMED_BOOST : 1)
  );
}

// A phrase in most of a sizeable corpus is the user's boilerplate ("Quarterly planning"), not what a note is about.
const BOILERPLATE_CORPUS = 10;
const BOILERPLATE_SHARE = 0.5;

/** A phrase, a name, or a word rarer than the common ones (English: outside wink's lexicon or below `backgroundZipf`; Chinese: jieba's IDF ≥ `backgroundIdf`). */
function isSpecific(term: TermOccurrences, input: KeyPhraseInput): boolean {
  return term.size > 1 || term.rare === true || term.named === true || !input.common(term.key);
}

const HAN = /\p{Script=Han}/u;
const LATIN = /\p{Script=Latin}/u;

function isBoilerplate(corpus: CorpusStats, key: string): boolean {
  return corpus.documentCount >= BOILERPLATE_CORPUS && documentFrequencyOf(corpus, key) > corpus.documentCount * BOILERPLATE_SHARE;
}

/**
 * Short everyday adjectives describe ("fresh basil", "tiny restaurants"); long derived ones classify
 * ("cognitive biases", "agricultural revolution") and name a kind of thing even when said once.
 */
const CLASSIFYING_ADJECTIVE_LENGTH = 8;

function classifies(key: string): boolean {
  const first = key.slice(0, key.indexOf(" "));
  return first.length >= CLASSIFYING_ADJECTIVE_LENGTH || first.includes("-");
}

export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Spans that own the words inside them: explicit concepts, and multi-word phrases that recur. */
interface Covering {
  /** Distinct span starts, ascending. */
  starts: number[];
  /** Largest end among spans starting at or before starts[i]. */
  prefixMaxEnd: number[];
  /** Largest end among spans starting exactly at a position. */
  maxEndAt: Map<number, number>;
}

function coveringSpans(input: KeyPhraseInput): Covering {
  const maxEndAt = new Map<number, number>();
  const cover = (start: number, end: number): void => {
    if ((maxEndAt.get(start) ?? -1) < end) maxEndAt.set(start, end);
  };
  for (const spans of input.explicit.values()) for (const span of spans) cover(span.start, span.end);
  for (const term of input.terms.values()) {
    // A new word that holds together owns its pieces too: 叶文 of 叶文洁 is no name of its own.
    if (term.coined !== undefined ? !isNewWord(term, input, (key) => documentFrequencyOf(input.corpus, key)) : term.size < 2 || term.starts.length < 2) continue;
    term.starts.forEach((start, index) => cover(start, term.ends[index]!));
  }
  const starts = [...maxEndAt.keys()].sort((a, b) => a - b);
  const prefixMaxEnd: number[] = [];
  let running = -1;
  for (const start of starts) {
    running = Math.max(running, maxEndAt.get(start)!);
    prefixMaxEnd.push(running);
  }
  return { starts, prefixMaxEnd, maxEndAt };
}

/** Occurrences not strictly inside a covering span. */
function freeCount(term: TermOccurrences, covering: Covering): number {
  let free = 0;
  term.starts.forEach((start, index) => {
    const end = term.ends[index]!;
    const before = lastIndexBelow(covering.starts, start);
    const coveredFromLeft = before >= 0 && covering.prefixMaxEnd[before]! >= end;
    const coveredHere = (covering.maxEndAt.get(start) ?? -1) > end;
    if (!coveredFromLeft && !coveredHere) free++;
  });
  return free;
}

/** Index of the last value strictly below `limit` in an ascending array, or -1. */
function lastIndexBelow(sorted: number[], limit: number): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < limit) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/**
 * A string new-word discovery found (see cjk-new-words.ts) that holds together and recurs, in the note or in
 * another.
 */
function isNewWord(term: TermOccurrences, input: KeyPhraseInput, frequency: (key: string) => number): boolean {
  return term.coined! >= input.newWordCohesion && (term.starts.length >= 2 || frequency(term.key) >= 2);
}

/** Whether `outer` contains `inner` as whole words (Latin) or as a substring (CJK). */
function containsPhrase(outer: string, inner: string): boolean {
  if (outer.length <= inner.length) return false;
  for (let at = outer.indexOf(inner); at >= 0; at = outer.indexOf(inner, at + 1)) {
    if (!isLatinWordChar(outer[at - 1] ?? " ") && !isLatinWordChar(outer[at + inner.length] ?? " ")) return true;
  }
  return false;
}

function isLatinWordChar(char: string): boolean {
  return /[\p{L}\p{N}]/u.test(char) && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(char);
}

function insideAny(sortedSpans: readonly TextSpan[], position: number): boolean {
  let low = 0;
  let high = sortedSpans.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = sortedSpans[middle]!;
    if (position < span.start) high = middle - 1;
    else if (position >= span.end) low = middle + 1;
    else return true;
  }
  return false;
}
