import type { TextSpan } from "../../extraction";
import type { Mark } from "./marks";
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
    if (/\s/.test(text) && !HAN.test(text) && opensWithVerb(verbs, start)) return;
    const article = LEADING_ARTICLE.exec(text);
    if (article) start += article[0].length;
    marks.push({ kind: "name", text: prose.slice(start, end), span: { start, end } });
  };
  const content = prose.slice(contentStart);
  for (const match of content.matchAll(TITLE_RUN)) {
    const title = titleInRun(match[0]);
    if (title && !inTitleCaseLine(content, match.index)) add(contentStart + match.index + title[0], contentStart + match.index + title[1]);
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

function opensWithVerb(verbs: readonly TextSpan[], start: number): boolean {
  let low = 0;
  let high = verbs.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (verbs[middle]!.start < start) low = middle + 1;
    else high = middle;
  }
  return verbs[low]?.start === start;
}
const ARTICLES = new Set(["The", "A", "An"]);
// Grammar's coordinators and the words of a route join two names ("Rashomon and Seven Samurai", "Lisbon to Granada"), not a title.
const COORDINATORS = new Set(["and", "or", "to", "from", "vs"]);

/**
 * The title inside a run of capitalised words: function words that open it are dropped (a sentence's
 * "When", "After"; an article stays: "The Guns of August"), and what is left is two or more capitalised
 * words joined by a function word, lowercase ("Battle of the Marne") or capitalised as a title's own
 * ("Attention Is All You Need"). Offsets into the run, or undefined.
 */
function titleInRun(run: string): [number, number] | undefined {
  const words = run.split(/ +/);
  let first = 0;
  while (first < words.length && STOPWORDS.has(words[first]!.toLowerCase()) && !ARTICLES.has(words[first]!)) first++;
  let capitals = 0;
  let joined = false;
  for (const [index, word] of words.slice(first).entries()) {
    if (CAPITALISED.test(word)) {
      capitals++;
      if (index > 0 && STOPWORDS.has(word.toLowerCase())) joined = true;
    } else if (STOPWORDS.has(word) && !COORDINATORS.has(word)) joined = true;
    else return undefined;
  }
  // Capitalised words alone are the phrase reader's (a name of up to three words); a title joins them.
  if (capitals < 2 || !joined) return undefined;
  const start = words.slice(0, first).reduce((sum, word) => sum + word.length + 1, 0);
  return [start, run.length];
}

/** A heading or title in Title Case: its capitals say nothing (headings are concepts of their own). */
function inTitleCaseLine(content: string, at: number): boolean {
  const lineStart = content.lastIndexOf("\n", at - 1) + 1;
  const newline = content.indexOf("\n", at);
  const line = content.slice(lineStart, newline < 0 ? content.length : newline);
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
