import type { Jieba } from "@node-rs/jieba";
import { type EnglishZipf, loadEnglishZipf } from "./general-frequency";

/** Coarse part of speech of a word, as the candidate reader needs it. */
export const enum WordClass {
  /** Nouns, proper nouns, unknown words: may end a phrase and stand alone. */
  Noun = 1,
  /** Adjectives (and hyphenated compounds): may start a phrase, never end one. */
  Modifier,
  /** Verbs: never part of an English phrase; a Chinese verb may follow a noun (损失厌恶). */
  Verb,
  /** Everything else (adverbs, pronouns, numbers, determiners, particles...): ends a phrase. */
  Other,
  /** Auxiliaries ("is", "has"): end a phrase like a verb, but never label a relation. */
  Auxiliary,
}

export interface TaggedWord {
  start: number;
  end: number;
  cls: WordClass;
  /** Not in the English model's lexicon (about 87,000 words): a technical term or a name ("embeddings", "matcha"). */
  rare: boolean;
}

/** The part-of-speech taggers, loaded once per process by the first build (not at API start-up). */
export interface Nlp {
  /** English words by start offset (wink-nlp's tokens located in `text`). */
  tagEnglish(text: string): Map<number, TaggedWord>;
  /** jieba segmentation with tags; the words concatenate back to `text`. */
  tagChinese(text: string): { word: string; tag: string }[];
  /** How specific a Chinese word is in general use (jieba's IDF table): below 1 for everyday words (数据, 模型), above for rare ones. */
  chineseSpecificity(word: string): number;
  /** jieba's IDF of a Chinese word (about 2 for 的, 13.9 for the rarest), undefined when its table lacks the word. */
  chineseIdf(word: string): number | undefined;
  /** How common an English word is in general use, as a Zipf value (see general-frequency.ts); 0 when unknown. */
  englishZipf: EnglishZipf;
  /** Words outside the English lexicon that the current wink instance has learnt (see VOCABULARY_LIMIT). */
  learntWords(): number;
}

/**
 * wink keeps every word it has not seen before for the life of its instance (~450 bytes each: 1M
 * new words cost a long-lived worker ~450 MB). Past this many, the next read uses a fresh instance
 * (~0.1 s to make), which knows the lexicon again and nothing else.
 */
const VOCABULARY_LIMIT = 50_000;

// jieba's IDF runs from about 2 (的-like) to 13.9 (rarest); squared against this, an everyday word weighs a quarter.
const TYPICAL_IDF = 10;

const NOT_FOR_WINK = /\S{41,}|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

// The lexicon holds lowercase forms: a capitalised word ("Whisk" opening a sentence) is not known to be rare.
const LOWERCASE_START = /^[a-z]/;

// A capital that only marks the start of a sentence or list item: "Chunking decided everything."
const SENTENCE_CAPITAL = /(?:^|[.!?]\s+|\n[ \t]*(?:[-*+>][ \t]+|\d{1,3}[.)][ \t]+)?)(\p{Lu}\p{Ll}+)\b/gu;

let loading: Promise<Nlp> | undefined;

export function loadNlp(): Promise<Nlp> {
  loading ??= createNlp().catch((error) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The taggers themselves; `loadNlp` shares one set per process. */
export async function createNlp(options: { vocabularyLimit?: number } = {}): Promise<Nlp> {
  const vocabularyLimit = options.vocabularyLimit ?? VOCABULARY_LIMIT;
  const [{ default: winkNLP }, { default: model }, jiebaModule, { dict, idf }, englishZipf] = await Promise.all([
    import("wink-nlp"),
    import("wink-eng-lite-web-model"),
    import("@node-rs/jieba"),
    import("@node-rs/jieba/dict"),
    loadEnglishZipf(),
  ]);
  // The model hands each instance its own copy of the lexicon, so a new instance starts clean.
  let wink = winkNLP(model, ["pos"]);
  const its = wink.its;
  // The lexicon's words have the lowest ids; a word read for the first time gets the next free one.
  const lexiconSize = wink.readDoc("qzxjvkwq").tokens().out(its.uniqueId)[0] as unknown as number;
  let learnt = 1; // the probe above
  const learn = (ids: number[]) => {
    for (const id of ids) learnt = Math.max(learnt, id - lexiconSize + 1);
    if (learnt >= vocabularyLimit) {
      wink = winkNLP(model, ["pos"]);
      learnt = 0;
    }
  };
  const jieba: Jieba = jiebaModule.Jieba.withDict(dict);
  const generalIdf = new Map<string, number>();
  for (const line of new TextDecoder().decode(idf).split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) generalIdf.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return {
    tagEnglish(text) {
      const tagged = new Map<number, TaggedWord>();
      if (!/[A-Za-z]/.test(text)) return tagged;
      // Words longer than any the reader keeps, and CJK (jieba's), are blanked (same length, offsets kept): wink slows down on them.
      // Part of speech only: wink's entity recogniser would cost a third more time for dates the stop words already drop.
      const tokens = wink.readDoc(text.replace(NOT_FOR_WINK, (word) => " ".repeat(word.length))).tokens();
      const values = tokens.out() as string[];
      const tags = tokens.out(its.pos) as string[];
      const ids = tokens.out(its.uniqueId) as unknown as number[];
      let lowerIds: number[] = [];
      let cursor = 0;
      for (let at = 0; at < values.length; at++) {
        const value = values[at]!;
        const start = text.indexOf(value, cursor);
        // wink normalises a few tokens (quotes, contractions): skip what cannot be found nearby.
        if (start < 0 || start - cursor > 64) continue;
        cursor = start + value.length;
        tagged.set(start, { start, end: cursor, cls: englishClass(tags[at]!), rare: ids[at]! >= lexiconSize && LOWERCASE_START.test(value) });
      }
      // A sentence-initial word is looked up in lower case ("Chunking" → "chunking"), in one more small read.
      const initials = [...text.matchAll(SENTENCE_CAPITAL)].filter((match) => tagged.has(match.index + match[0].length - match[1]!.length));
      if (initials.length > 0) {
        lowerIds = wink.readDoc(initials.map((match) => match[1]!.toLowerCase()).join(" ")).tokens().out(its.uniqueId) as unknown as number[];
        if (lowerIds.length === initials.length) {
          initials.forEach((match, index) => {
            const word = tagged.get(match.index + match[0].length - match[1]!.length)!;
            word.rare = lowerIds[index]! >= lexiconSize;
          });
        }
      }
      learn(ids);
      learn(lowerIds);
      return tagged;
    },
    tagChinese(text) {
      return splitVerbObjects(joinSingleNameCharacters(retagEverydayNames(jieba.tag(text, false), generalIdf)), generalIdf);
    },
    chineseSpecificity(word) {
      const value = generalIdf.get(word);
      return value === undefined ? 1 : Math.min(1.5, (value / TYPICAL_IDF) ** 2);
    },
    chineseIdf: (word) => generalIdf.get(word),
    englishZipf,
    learntWords: () => learnt,
  };
}

function englishClass(tag: string): WordClass {
  switch (tag) {
    case "NOUN":
    case "PROPN":
    case "X":
    case "SYM":
      return WordClass.Noun;
    case "ADJ":
      return WordClass.Modifier;
    case "VERB":
      return WordClass.Verb;
    case "AUX":
      return WordClass.Auxiliary;
    default:
      return WordClass.Other;
  }
}

/** jieba's tags (ICTCLAS): nouns, names, places, organisations, English words; "x" is an out-of-dictionary (HMM) word. */
const NOMINAL_SUFFIX = new Set(["率", "性", "度", "器", "者", "量", "值", "法", "论", "感"]);

const HAN_NUMERAL_CHAR = /[零〇一二三四五六七八九十百千万亿两几第]/u;

export function chineseClass(tag: string, word: string): WordClass {
  // A nominal suffix makes a noun of the verb before it, whatever jieba tags it: 学习 + 率, 留存 + 率.
  if (NOMINAL_SUFFIX.has(word)) return WordClass.Noun;
  const head = tag[0];
  if (head === "n" || tag === "eng" || tag === "j" || tag === "l" || tag === "i" || tag === "vn" || tag === "an" || tag === "s") return WordClass.Noun;
  if (tag === "x") return /^[\p{Script=Han}]{2,}$/u.test(word) ? WordClass.Noun : WordClass.Other;
  // jieba's time words hold eras and dynasties (唐朝, 北宋) beside times of day and week (早上, 周五): a noun, but a
  // doubtful one (see cjk-terms.ts), and never one with a numeral in it.
  if (tag === "t") return word.length >= 2 && !HAN_NUMERAL_CHAR.test(word) ? WordClass.Noun : WordClass.Other;
  if (head === "v") return WordClass.Verb;
  if (head === "a" || tag === "b") return WordClass.Modifier;
  return WordClass.Other;
}

// jieba's IDF below about 8.7: a word everyday text uses, which a person's name is not.
const EVERYDAY_IDF = 8.7;
/** Our tag for an "nr" word of everyday text: a noun that may be a name (秦始皇, 胡同) or a misread (宁可), never part of a compound. */
export const EVERYDAY_NAME_TAG = "nx";

/**
 * Without HMM jieba tags some everyday words of its dictionary as names ("nr": 宁可, 远高于, 太久), beside
 * real ones (秦始皇, 诸葛亮). A name is mostly rare in general text (卡尼曼 is not in the IDF table at all):
 * an "nr" word the IDF table calls everyday is a noun that is not known to be a name, and joins no compound.
 */
function retagEverydayNames(words: { word: string; tag: string }[], known: ReadonlyMap<string, number>): { word: string; tag: string }[] {
  for (const entry of words) {
    if (entry.tag !== "nr" || entry.word.length < 2) continue;
    const idf = known.get(entry.word);
    if (idf !== undefined && idf < EVERYDAY_IDF) entry.tag = EVERYDAY_NAME_TAG;
  }
  return words;
}

// Everyday one-character verbs that jieba's dictionary glues to their object as one "word": 吃火锅 (l), 喝咖啡 (nr).
const EVERYDAY_VERBS = new Set([..."吃喝买逛玩看听"]);

/**
 * An everyday verb and a known word after it, which the dictionary keeps as one set expression or
 * misreads as a name, become the verb and a noun: 吃火锅 → 吃 + 火锅, so the dish can be a concept.
 */
function splitVerbObjects(words: { word: string; tag: string }[], known: ReadonlyMap<string, number>): { word: string; tag: string }[] {
  const split: { word: string; tag: string }[] = [];
  for (const entry of words) {
    const object = entry.word.slice(1);
    if (entry.word.length >= 3 && EVERYDAY_VERBS.has(entry.word[0]!) && (entry.tag === "l" || entry.tag === "i" || entry.tag.startsWith("nr")) && known.has(object)) {
      split.push({ word: entry.word[0]!, tag: "v" }, { word: object, tag: "n" });
    } else split.push(entry);
  }
  return split;
}

const NAME_CHAR_TAGS = new Set(["n", "nr", "nrt", "ns", "nz"]);

/**
 * Without HMM (which glues unknown characters to their neighbours: "卡尼曼谈"), jieba splits an
 * out-of-dictionary transliteration into single characters (卡/n 尼/nr 曼/nr): two to four such
 * characters in a row are read as one name.
 */
function joinSingleNameCharacters(words: { word: string; tag: string }[]): { word: string; tag: string }[] {
  const joined: { word: string; tag: string }[] = [];
  for (let at = 0; at < words.length; ) {
    let end = at;
    while (end < words.length && words[end]!.word.length === 1 && NAME_CHAR_TAGS.has(words[end]!.tag) && /\p{Script=Han}/u.test(words[end]!.word)) end++;
    if (end - at >= 2 && end - at <= 4 && words.slice(at, end).some((word) => word.tag.startsWith("nr"))) {
      joined.push({ word: words.slice(at, end).map((word) => word.word).join(""), tag: "nr" });
      at = end;
    } else {
      joined.push(words[at]!);
      at++;
    }
  }
  return joined;
}

/** One note's tagger output, packed: what the corpus pass saw, replayed when the note is extracted. */
export interface RecordedTags {
  /** start, (length << 4 | rare << 3 | class) per English word. */
  english?: Int32Array;
  chinese?: { lengths: Uint32Array; tags: Uint8Array };
}

const tagIds = new Map<string, number>();
const tagNames: string[] = [];

function tagId(tag: string): number {
  let id = tagIds.get(tag);
  if (id === undefined) {
    id = tagNames.length;
    tagIds.set(tag, id);
    tagNames.push(tag);
  }
  return id;
}

/** Tags through `nlp`, keeping a packed copy in `into`. */
export function recordTags(nlp: Nlp, into: RecordedTags): Nlp {
  return {
    ...nlp,
    tagEnglish(text) {
      const tagged = nlp.tagEnglish(text);
      const packed = new Int32Array(tagged.size * 2);
      let at = 0;
      for (const word of tagged.values()) {
        packed[at++] = word.start;
        packed[at++] = ((word.end - word.start) << 4) | (word.rare ? 8 : 0) | word.cls;
      }
      into.english = packed;
      return tagged;
    },
    tagChinese(text) {
      const words = nlp.tagChinese(text);
      into.chinese = { lengths: Uint32Array.from(words, ({ word }) => word.length), tags: Uint8Array.from(words, ({ tag }) => tagId(tag)) };
      return words;
    },
  };
}

/** Replays what `recordTags` kept for the same text, so a note is tagged once per build. */
export function replayTags(nlp: Nlp, from: RecordedTags): Nlp {
  return {
    ...nlp,
    tagEnglish(text) {
      if (!from.english) return nlp.tagEnglish(text);
      const tagged = new Map<number, TaggedWord>();
      for (let at = 0; at < from.english.length; at += 2) {
        const start = from.english[at]!;
        const packed = from.english[at + 1]!;
        tagged.set(start, { start, end: start + (packed >> 4), cls: (packed & 7) as WordClass, rare: (packed & 8) !== 0 });
      }
      return tagged;
    },
    tagChinese(text) {
      if (!from.chinese) return nlp.tagChinese(text);
      const words: { word: string; tag: string }[] = [];
      let offset = 0;
      from.chinese.lengths.forEach((length, index) => {
        words.push({ word: text.slice(offset, offset + length), tag: tagNames[from.chinese!.tags[index]!]! });
        offset += length;
      });
      return words;
    },
  };
}
