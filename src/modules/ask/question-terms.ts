import { STOPWORDS } from "../graph/extractors/local/stopwords";
import { isCjk, tokenize, type Token } from "../search/tokens";

/**
 * One word of a question as the index holds it: a Latin word, or a CJK bigram (a lone CJK
 * character when its run is one character long). `prefix` lets an English plural find its singular.
 */
export interface QuestionTerm {
  /** Index form without the owner prefix. */
  token: string;
  prefix: boolean;
}

// Question words a note never answers with, beyond the extractor's stopwords (which name few question words).
const QUESTION_WORDS = new Set(
  (
    "what which who whom whose when where why how does did do is are was were tell explain describe mention mentioned " +
    "note notes wrote write written think thought 为什 什么 么是 是什 怎么 如何 哪些 哪个 哪里 多少 几个 是否 吗 呢 提到 笔记"
  ).split(" "),
);
const STOP_CHARS = new Set([...STOPWORDS].filter((word) => word.length === 1 && isCjk(word)));
STOP_CHARS.add("什").add("怎");

/**
 * The words of a question worth looking up, in the index's form (see search/tokens.ts): Latin words
 * that are not stopwords, and each CJK run's bigrams except those made of function characters (的,
 * 是, 什么…). A question is not an all-terms search: notes are ranked by any of these.
 */
export function questionTerms(question: string): QuestionTerm[] {
  const tokens = tokenize(question);
  const terms = new Map<string, QuestionTerm>();
  const add = (token: string, prefix = false) => {
    if (!terms.has(token)) terms.set(token, { token, prefix });
  };
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at]!;
    if (!token.cjk) {
      if (STOPWORDS.has(token.text) || QUESTION_WORDS.has(token.text)) continue;
      // "pancakes" finds "pancake" and "pancakes"; a word ending in "ss" is no plural.
      if (/^[a-z]{4,}s$/.test(token.text) && !token.text.endsWith("ss")) add(token.text.slice(0, -1), true);
      else add(token.text);
      continue;
    }
    const run = cjkRun(tokens, at);
    at += run.length - 1;
    if (run.length === 1) {
      if (!STOP_CHARS.has(run[0]!)) add(run[0]!, true);
      continue;
    }
    for (let k = 0; k + 1 < run.length; k++) {
      const bigram = run[k]! + run[k + 1]!;
      if (STOPWORDS.has(bigram) || QUESTION_WORDS.has(bigram) || (STOP_CHARS.has(run[k]!) || STOP_CHARS.has(run[k + 1]!))) continue;
      add(bigram);
    }
  }
  return [...terms.values()];
}

/** The characters of the CJK run starting at `at` (adjacent in the text, as the index pairs them). */
function cjkRun(tokens: Token[], at: number): string[] {
  const run = [tokens[at]!.text];
  while (at + 1 < tokens.length && tokens[at + 1]!.cjk && tokens[at + 1]!.start === tokens[at]!.end) {
    at++;
    run.push(tokens[at]!.text);
  }
  return run;
}
