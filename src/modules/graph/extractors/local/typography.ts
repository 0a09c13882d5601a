import type { TextSpan } from "../../extraction";
import type { Mark } from "./marks";
import { firstSpanFrom } from "./mentions";
import { isTitleCase } from "./name-shape";
import { STOPWORDS } from "./stopwords";

/**
 * Names the note's typography sets apart, beside Markdown emphasis (marks.ts): titles in Title Case
 * ("Year of the Four Emperors", "Attention Is All You Need"), quoted names, the term a list item or a
 * table row starts with ("- Impermanence: …", "| 绿茶 | 不发酵 |"), and the items of a Chinese
 * enumeration (大熊猫、都江堰、李冰). Each is checked as a name (length, no clause) by the caller.
 */
export function typographicMarks(prose: string, contentStart: number, verbs: readonly TextSpan[] = []): Mark[] {
  const marks: Mark[] = [];
  const add = (start: number, end: number) => {
    while (start < end && /\s/.test(prose[start]!)) start++;
    while (end > start && /[\s.,;:!?。，；：！？]/.test(prose[end - 1]!)) end--;
    const text = prose.slice(start, end);
    if (end <= start || isTitleCase(text)) {
      if (end > start) marks.push({ kind: "name", text, span: { start, end } });
      return;
    }
    // Not a title: words after a verb make it a clause, an instruction ("Organize with PARA", "Distill with progressive
    // summarization"); and an article before a noun phrase is not part of its name ("The CODE method").
    if (/\s/.test(text) && !HAN.test(text) && (opensWithVerb(verbs, start) || AUXILIARY.test(text))) return;
    const article = LEADING_ARTICLE.exec(text);
    if (article) start += article[0].length;
    marks.push({ kind: "name", text: prose.slice(start, end), span: { start, end } });
  };
  const content = prose.slice(contentStart);
  for (const match of content.matchAll(TITLE_RUN)) {
    const opening = SENTENCE_OPENING.test(content.slice(Math.max(0, match.index - LOOK_BACK), match.index));
    const titles = titlesInRun(match[0], opening);
    if (titles.length === 0 || inTitleCaseLine(content, match.index)) continue;
    for (const [from, to] of titles) add(contentStart + match.index + from, contentStart + match.index + to);
  }
  for (const match of content.matchAll(QUOTED)) {
    const inner = match[1] ?? match[2] ?? match[3] ?? "";
    const start = contentStart + match.index + 1;
    add(start, start + inner.length);
  }
  // The captured term sits after the bullet (or the cell's bar): what follows it (": ", " |") is not part of it.
  for (const match of content.matchAll(LIST_ITEM_HEAD)) {
    const start = contentStart + match.index + match[0].indexOf(match[1]!);
    add(start, start + match[1]!.length);
  }
  for (const match of content.matchAll(TABLE_ROW_HEAD)) {
    // The header row and its rule are not rows of things.
    const next = content.indexOf("\n", match.index + 1);
    const previousLine = content.slice(content.lastIndexOf("\n", match.index - 1) + 1, match.index);
    if (/^\s*\|?\s*:?-{2,}/.test(content.slice(next + 1, next + 40)) || !/\|/.test(previousLine)) continue;
    const start = contentStart + match.index + match[0].indexOf(match[1]!);
    add(start, start + match[1]!.length);
  }
  for (const match of content.matchAll(ENUMERATION)) {
    let at = contentStart + match.index;
    for (const item of match[0].split("、")) {
      add(at, at + item.length);
      at += item.length + 1;
    }
  }
  return marks;
}

// Capitalised words (an apostrophe or hyphen inside), with short lowercase words between them.
const TITLE_RUN = /(?<![\p{L}\p{N}'’])\p{Lu}[\p{L}\p{N}'’-]*(?:[ ]+(?:\p{Lu}[\p{L}\p{N}'’-]*|\p{Ll}{1,4}|\d{1,4}))*(?<=[\p{L}\p{N}])/gu;
const CAPITALISED = /^\p{Lu}/u;
const LEADING_ARTICLE = /^(?:the|a|an)\s+(?=\S)/i;
const HAN = /\p{Script=Han}/u;
// A form of "be", "have" or a modal verb makes words a statement ("Huberman is cautious about melatonin"), not a name.
const AUXILIARY = /(?<![\p{L}'’])(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|must|may|might)(?![\p{L}'’])/iu;

function opensWithVerb(verbs: readonly TextSpan[], start: number): boolean {
  return firstSpanFrom(verbs, start)?.start === start;
}

const ARTICLES = new Set(["The", "A", "An"]);
// Grammar's coordinators, the words of a route and a companion's "with" join two names ("Rashomon and Seven Samurai",
// "Lisbon to Granada", "Quantum Country with Michael Nielsen"), not a title.
const COORDINATORS = new Set(["and", "or", "to", "from", "vs", "with"]);

// What may stand between a sentence's start and its first word: a list marker, a quote, a bracket.
const SENTENCE_OPENING = /(?:^|[.!?:;]\s+|\n[ \t]*(?:[-*+>#]+[ \t]*|\d{1,3}[.)][ \t]*)?)[*_"'“‘(\[]*$/u;
const LOOK_BACK = 12;

/**
 * The titles inside a run of capitalised words, split where a coordinator joins two ("Kind of Blue and In a Silent
 * Way"). A title is two or more capitalised words joined by a function word, lowercase ("Battle of the Marne") or
 * capitalised as a title's own ("Attention Is All You Need"), or opened by an article inside a sentence ("A Love
 * Supreme"). Function words opening a sentence are dropped (its "When", "After"; an article stays: "The Guns of
 * August"). Offsets into the run.
 */
function titlesInRun(run: string, opening: boolean): [number, number][] {
  const titles: [number, number][] = [];
  let offset = 0;
  let part: { word: string; at: number }[] = [];
  const close = () => {
    const title = titleInPart(part, opening && titles.length === 0 && part[0]?.at === 0);
    if (title) titles.push(title);
    part = [];
  };
  for (const word of run.split(" ")) {
    if (word.length > 0) {
      if (COORDINATORS.has(word)) close();
      else part.push({ word, at: offset });
    }
    offset += word.length + 1;
  }
  close();
  return titles;
}

function titleInPart(words: { word: string; at: number }[], opensSentence: boolean): [number, number] | undefined {
  let first = 0;
  if (opensSentence) while (first < words.length && STOPWORDS.has(words[first]!.word.toLowerCase()) && !ARTICLES.has(words[first]!.word)) first++;
  let capitals = 0;
  let joined = !opensSentence && ARTICLES.has(words[first]?.word ?? "");
  for (const [index, { word }] of words.slice(first).entries()) {
    if (CAPITALISED.test(word)) {
      capitals++;
      if (index > 0 && STOPWORDS.has(word.toLowerCase())) joined = true;
    } else if (STOPWORDS.has(word)) joined = true;
    else return undefined;
  }
  // Capitalised words alone are the phrase reader's (a name of up to three words); a title joins them.
  if (capitals < 2 || !joined) return undefined;
  // A title ends on a capitalised word: a run going on in lower case ("Walked up Fushimi Inari at") is a sentence.
  const last = words[words.length - 1]!;
  if (!CAPITALISED.test(last.word)) return undefined;
  return [words[first]!.at, last.at + last.word.length];
}

// A title or heading is short: a longer line is prose (and is not scanned whole for every run on it).
const MAX_TITLE_LINE = 200;

/** A heading or title in Title Case: its capitals say nothing (headings are concepts of their own). */
function inTitleCaseLine(content: string, at: number): boolean {
  const windowStart = Math.max(0, at - MAX_TITLE_LINE);
  const before = content.slice(windowStart, at).lastIndexOf("\n");
  if (before < 0 && windowStart > 0) return false;
  const lineStart = before < 0 ? 0 : windowStart + before + 1;
  const after = content.slice(at, lineStart + MAX_TITLE_LINE + 1).indexOf("\n");
  if (after < 0 && lineStart + MAX_TITLE_LINE < content.length) return false;
  const line = content.slice(lineStart, after < 0 ? content.length : at + after);
  const words = line.match(/\p{L}{4,}/gu) ?? [];
  return /^\s*#/.test(line) || (words.length >= 2 && words.every((word) => CAPITALISED.test(word)));
}

// “Obsidian”, "zone 2 training", 「都江堰」, ‘…’: a short quotation.
const QUOTED = /“([^“”\n]{2,40})”|(?<![\p{L}\p{N}])"([^"\n]{2,40})"(?![\p{L}\p{N}])|「([^「」\n]{2,20})」/gu;
// "- Impermanence: …", "1. 都江堰：…", "- **Vite** — …": the term a list item defines.
const LIST_ITEM_HEAD = /^[ \t]*(?:[-*+]|\d{1,3}[.)、])[ \t]+(?:\*\*)?([^\n:：—–(（*]{2,40}?)(?:\*\*)?[ \t]*(?:[:：—–]|[(（])/gmu;
// "| 绿茶 | 不发酵 |": a table row's first cell.
const TABLE_ROW_HEAD = /^[ \t]*\|[ \t]*([^|\n]{2,40}?)[ \t]*\|/gmu;
// 大熊猫、都江堰、李冰: items of two to six Han characters joined by the enumeration comma.
const ENUMERATION = /\p{Script=Han}{2,6}(?:、\p{Script=Han}{2,6})+/gu;
