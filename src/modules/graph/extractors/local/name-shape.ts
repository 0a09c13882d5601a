import { conceptKey, displayLabel } from "../../concept-key";
import { cjkWords } from "./cjk-terms";
import { GENERIC_LABELS, GENERIC_PHRASES, STOPWORDS } from "./stopwords";

/** How long a marked-up name may be and still read as the name of a thing rather than a sentence. */
export interface NameLimits {
  maxWords: number;
  maxCjkChars: number;
  maxChars: number;
  allowCommas?: boolean;
}

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const SENTENCE_PUNCTUATION = /[?!。？！;；,，|]|\.\s|[.…]$/;
const NUMBERED_LABEL = /^(?:(?:step|part|chapter|day|week|phase|lesson|lecture|section|question|q|round)\s*(?:\d+|[ivxlc]+)|第[一二三四五六七八九十百\d]+[章节部篇课讲周天])$/iu;
// Single characters that only ever glue a clause together; others (过, 用) also start real words the segmenter splits.
const CLAUSE_PARTICLES = new Set([..."的了吗呢吧啊着是在和与或但就都也很把被让"]);
// "1.", "2.3", "四、", "第一章" before a heading.
const SECTION_NUMBER = /^(?:\d+(?:\.\d+)*[.)、:]|\d+(?:\.\d+)+|[一二三四五六七八九十]+、|第[一二三四五六七八九十百\d]+[章节部篇课讲])\s*/u;
const NOT_CJK = /[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const LEADING_ARTICLE = new Set(["the", "a", "an"]);

/** Whether a heading, title or emphasised phrase looks like the name of a concept (short, not generic, not a clause). */
export function isConceptName(name: string, limits: NameLimits): boolean {
  // Commas are allowed inside a named work ("Thinking, Fast and Slow"); other clause punctuation is not.
  const key = conceptKey(limits.allowCommas ? name.replace(/[,，]/g, " ") : name);
  if (key.length === 0 || key.length > limits.maxChars || !/\p{L}/u.test(key)) return false;
  if (isLayoutLabel(key)) return false;
  if (SENTENCE_PUNCTUATION.test(key) || /[?？]$/.test(displayLabel(name))) return false;
  const cjkChars = key.match(CJK_CHAR)?.length ?? 0;
  if (cjkChars > limits.maxCjkChars) return false;
  // Function words (的, 关于, 一些) make a CJK name a clause: "关于神经网络的一些想法".
  if (cjkChars > 0 && cjkWords(key.replace(NOT_CJK, " ")).some(isFunctionWord)) return false;
  const words = key.replace(CJK_CHAR, " ").split(" ").filter((word) => /[\p{L}\p{N}]/u.test(word));
  if (words.length > limits.maxWords) return false;
  if (STOPWORDS.has(key)) return false;
  if (words.length > 0) {
    const first = words[0]!;
    const last = words[words.length - 1]!;
    if (words.every((word) => STOPWORDS.has(word))) return false;
    // A work's title may open with any word ("Why Nations Fail", "On the Shortness of Life") and end with any long one
    // ("Spirited Away", "The Guns of August"): its capitals say so.
    const titled = isTitleCase(name);
    if ((STOPWORDS.has(first) && !LEADING_ARTICLE.has(first) && !titled) || (STOPWORDS.has(last) && !(titled && last.length >= 4))) return false;
  }
  return true;
}

const LONG_WORD = /[\p{L}'’]{4,}/gu;

const CAPITALISED_WORD = /(?<![\p{L}'’])\p{Lu}/gu;

/**
 * Capitalised first word and every word of four letters or more, two such words or three capitalised in all: a
 * title's spelling ("In a Silent Way"), not a sentence's.
 */
export function isTitleCase(name: string): boolean {
  const words = name.match(LONG_WORD) ?? [];
  if (!/^\p{Lu}/u.test(name.trimStart()) || !words.every((word) => /^\p{Lu}/u.test(word))) return false;
  return words.length >= 2 || (name.match(CAPITALISED_WORD)?.length ?? 0) >= 3;
}

function isFunctionWord(word: string): boolean {
  return word.length > 1 ? STOPWORDS.has(word) : CLAUSE_PARTICLES.has(word);
}

/** Keys that label a note's layout ("Summary", "See also", "Step 3", "第一章") rather than name a subject. */
export function isLayoutLabel(key: string): boolean {
  return GENERIC_LABELS.has(key) || GENERIC_PHRASES.has(key) || NUMBERED_LABEL.test(key);
}

/**
 * What follows a layout label and a colon ("Book notes: Sapiens", "Chapter 3: Prospect theory",
 * "读书笔记：人类简史"), or undefined when the text does not start with such a label.
 */
export function subjectAfterLabel(text: string): string | undefined {
  const colon = text.search(/[:：]/);
  if (colon <= 0) return undefined;
  return isLayoutLabel(conceptKey(text.slice(0, colon))) ? text.slice(colon + 1) : undefined;
}

/** Removes inline Markdown and section numbering from a heading or emphasised phrase, for use as a name. */
export function cleanMarkedName(raw: string): string {
  const label = raw
    .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
    .replace(/\[\[|\]\]|\*\*|__|==|[`*[\]]/g, "")
    .replace(/\s*\{#[^}]*\}\s*$/, "")
    .replace(SECTION_NUMBER, "")
    .replace(/^[\s:：.、-]+|[:：]\s*$/g, "");
  return displayLabel(label);
}
