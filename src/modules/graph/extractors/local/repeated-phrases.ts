import { type TaggedWord, WordClass } from "./nlp";
import { STOPWORDS } from "./stopwords";
import { addOccurrence, type TermSink } from "./term-index";

/** A Latin word of the prose as the reader scanned it, or a break (punctuation, a paragraph's end, CJK). */
export interface ScannedWord {
  text: string;
  start: number;
  end: number;
  /** Worked out once per word (see `describe`): every window the word is in asks. */
  stop?: boolean;
  cls?: WordClass;
}

const MAX_SIZE = 3;
const SMALL_NUMBER = /^\d{1,3}$/;
const NUMBER = /^\d/;
const TITLED = /^\p{Lu}/u;
const POSSESSIVE = /['’]s$/i;
// What follows a verb that takes an object ("the coach said that", "pace felt easy"); an object after the last word makes it a verb.
const OBJECT_START = /^(?:a|an|the|this|that|these|those|my|your|his|her|its|our|their|it|them|him|me|us|you)$/i;

/**
 * Multi-word phrases the tagger does not give: its part-of-speech guess breaks "tempo run" (run/VERB), "zone 2
 * training" (zone/VERB), "stock picking", "Seven Samurai" (Seven/NUM) and "OK Computer". Every 2–3 word window of
 * content words is recorded (marked `repeated`), to become a concept only where the phrase recurs, in the note or
 * across notes: recurring word for word is what makes a string of words a term, whatever their tags. A window holds
 * content words (a noun's "of" aside: "dichotomy of control"); its last word is no adjective and takes no object.
 * Windows the tagged reader already has are left to it, and a capitalised window inside a clause is a name.
 */
export function addRepeatedPhrases(sink: TermSink, words: (ScannedWord | undefined)[], tagged: ReadonlyMap<number, TaggedWord>): void {
  // Where the tagged reader's phrases already are, by start and end.
  const known = new Map<number, number[]>();
  for (const term of sink.index.values()) {
    if (term.size < 2) continue;
    term.starts.forEach((start, at) => {
      const ends = known.get(start);
      if (ends) ends.push(term.ends[at]!);
      else known.set(start, [term.ends[at]!]);
    });
  }
  for (const word of words) if (word) describe(word, tagged);
  for (let first = 0; first < words.length; first++) {
    const head = words[first];
    if (!head || !startsPhrase(head, words[first - 1])) continue;
    for (let size = 2; size <= MAX_SIZE; size++) {
      const last = words[first + size - 1];
      // "dichotomy of control", "rule of 72": a noun's "of" joins it to its complement.
      if (size === 2 && last?.text === "of" && words[first + 2]) continue;
      if (!last || !inPhrase(last) || POSSESSIVE.test(words[first + size - 2]!.text)) break;
      if (!endsPhrase(last, words[first + size])) continue;
      const window = words.slice(first, first + size) as ScannedWord[];
      // Nouns and adjectives alone are the tagged reader's phrases (or not noun phrases at all): only a window a tag broke is new.
      if (!window.some((word) => brokeTagger(word))) continue;
      // A capitalised stopword belongs only to a capitalised name ("Seven Samurai", not "Seven samurai").
      const titled = window.every((word, at) => TITLED.test(word.text) || SMALL_NUMBER.test(word.text) || (at === 1 && word.text === "of"));
      if (!titled && window.some((word, at) => isStopword(word) && !(at === 1 && word.text === "of"))) break;
      if (known.get(head.start)?.includes(last.end)) continue;
      const term = addOccurrence(sink, window.map((word) => word.text).join(" "), size, head.start, last.end);
      if (term && term.starts.length === 1) term.repeated = true;
      // Capitalised words inside a clause are a name whatever their tags ("Roam Research", "Kaiming He"): said once is enough.
      if (term && titled && words[first - 1] !== undefined) term.named = true;
    }
  }
}

function describe(word: ScannedWord, tagged: ReadonlyMap<number, TaggedWord>): void {
  word.stop = STOPWORDS.has(word.text.toLowerCase());
  word.cls = tagged.get(word.start)?.cls ?? WordClass.Noun;
}

function isStopword(word: ScannedWord): boolean {
  return word.stop === true;
}

/** A capitalised word, a small number after the first word ("zone 2"), or a word the tagger reads as content. */
function inPhrase(word: ScannedWord): boolean {
  if (TITLED.test(word.text)) return true;
  if (NUMBER.test(word.text)) return SMALL_NUMBER.test(word.text);
  if (isStopword(word) || POSSESSIVE.test(word.text)) return false;
  const cls = word.cls ?? WordClass.Noun;
  return cls === WordClass.Noun || cls === WordClass.Modifier || cls === WordClass.Verb;
}

function startsPhrase(word: ScannedWord, before: ScannedWord | undefined): boolean {
  if (NUMBER.test(word.text) || POSSESSIVE.test(word.text)) return false;
  // A capitalised stopword inside a clause is a title's word ("Rashomon and Seven Samurai"); opening a sentence it is grammar ("In Japan").
  if (isStopword(word)) return TITLED.test(word.text) && before !== undefined;
  if (TITLED.test(word.text)) return true;
  const cls = word.cls ?? WordClass.Noun;
  return cls === WordClass.Noun || cls === WordClass.Modifier || cls === WordClass.Verb;
}

function endsPhrase(word: ScannedWord, after: ScannedWord | undefined): boolean {
  if (TITLED.test(word.text) || SMALL_NUMBER.test(word.text)) return true;
  const cls = word.cls ?? WordClass.Noun;
  if (cls === WordClass.Modifier) return false;
  if (cls !== WordClass.Verb || !after) return true;
  const next = after.cls;
  return !OBJECT_START.test(after.text) && next !== WordClass.Noun && next !== WordClass.Modifier;
}

/** A word the tagged reader cannot put in a phrase: a verb or other non-noun tag, a capitalised stopword, a number. */
function brokeTagger(word: ScannedWord): boolean {
  if (NUMBER.test(word.text) || isStopword(word)) return true;
  const cls = word.cls ?? WordClass.Noun;
  return cls !== WordClass.Noun && cls !== WordClass.Modifier;
}
