import { conceptKey, displayLabel } from "../../concept-key";
import type { NoteForExtraction, TextSpan } from "../../extraction";
import type { Mark } from "./marks";
import type { Nlp } from "./nlp";
import { cleanMarkedName, isConceptName, isLayoutLabel, isTitleCase, type NameLimits, subjectAfterLabel } from "./name-shape";
import type { Heading } from "./sections";
import { STOPWORDS } from "./stopwords";

/**
 * The fixed set of concept types the local extractor reports:
 * - "tag": the note's tags and its #hashtags;
 * - "link": [[wikilink]] targets (other notes or pages);
 * - "topic": Markdown headings, and the note title when it is a short noun phrase;
 * - "technology": identifier-like `inline code` (numpy, torch.nn, useEffect);
 * - "work": a title in 《》 (a book, film or article: 《思考，快与慢》);
 * - "concept": **bold**, ==highlighted== or *emphasised* terms, names set apart by typography (titles
 *   in Title Case, quotations, a list item's or table row's first term, a Chinese enumeration's items),
 *   and TF-IDF key phrases.
 */
export const LOCAL_CONCEPT_TYPES = ["tag", "link", "topic", "technology", "work", "concept"] as const;
export type LocalConceptType = (typeof LOCAL_CONCEPT_TYPES)[number];

export interface ConceptDraft {
  key: string;
  name: string;
  type: LocalConceptType;
  aliases: string[];
  /** Where the markup that made it a concept sits (empty for note tags). */
  spans: TextSpan[];
}

export interface ExplicitConcepts {
  /** In priority order: tags, links, topics, technologies, emphasised terms; each in reading order. */
  drafts: ConceptDraft[];
  /** Concept key of each heading that names a concept, by heading index. */
  headingKeys: (string | undefined)[];
  titleKey?: string;
}

/** A note with more explicit markup than this (an index page) keeps the first ones by priority. */
export const MAX_EXPLICIT_CONCEPTS = 40;
const MAX_NAME_LENGTH = 100;

const TITLE_LIMITS: NameLimits = { maxWords: 4, maxCjkChars: 12, maxChars: 60 };
const HEADING_LIMITS: NameLimits = { maxWords: 6, maxCjkChars: 16, maxChars: 60 };
const STRONG_LIMITS: NameLimits = { maxWords: 5, maxCjkChars: 16, maxChars: 50 };
const WORK_MAX_CHARS = 30;
const EMPHASIS_LIMITS: NameLimits = { maxWords: 3, maxCjkChars: 10, maxChars: 40 };
const TYPOGRAPHIC_LIMITS: NameLimits = { maxWords: 6, maxCjkChars: 8, maxChars: 50 };
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_.+#\-/:]{1,39}$/u;

export function explicitConcepts(
  note: Pick<NoteForExtraction, "title" | "tags">,
  visible: string,
  headings: Heading[],
  marks: Mark[],
  nlp: Pick<Nlp, "tagChinese">,
  recurs?: (key: string) => boolean,
  everyday?: (key: string) => boolean,
): ExplicitConcepts {
  const drafts = new Map<string, ConceptDraft>();
  const add = (rawName: string, type: LocalConceptType, span?: TextSpan, alias?: string): string | undefined => {
    const name = displayLabel(rawName);
    const key = conceptKey(name);
    if (key.length === 0 || name.length > MAX_NAME_LENGTH) return undefined;
    let draft = drafts.get(key);
    if (!draft) {
      if (drafts.size >= MAX_EXPLICIT_CONCEPTS) return undefined;
      draft = { key, name, type, aliases: [], spans: [] };
      drafts.set(key, draft);
    }
    if (span) draft.spans.push(span);
    const aliasLabel = alias === undefined ? "" : displayLabel(alias);
    if (aliasLabel && conceptKey(aliasLabel) !== key && !draft.aliases.includes(aliasLabel)) draft.aliases.push(aliasLabel);
    return key;
  };
  const ofKind = (kind: Mark["kind"]) => marks.filter((mark) => mark.kind === kind);

  const tagMarks = ofKind("hashtag");
  for (const tag of note.tags) add(tag, "tag");
  for (const mark of tagMarks) add(mark.text.replace(/_+/g, " "), "tag", mark.span);
  for (const mark of ofKind("wikilink")) add(mark.text, "link", mark.span, mark.alias);

  const title = titleSubject(note.title, nlp);
  const titleLimits = title?.afterLabel ? { ...TITLE_LIMITS, maxWords: 6, allowCommas: true } : TITLE_LIMITS;
  // A title is a concept when it names one: its subject follows or precedes a generic label ("Book notes: Sapiens",
  // 红烧肉做法), the notes name it too (it recurs, or a link or tag names it); "Autumn colours" alone does not.
  const titleNames = (name: string, labelled: boolean) =>
    labelled || drafts.has(conceptKey(displayLabel(name))) || (recurs?.(conceptKey(displayLabel(name))) ?? true);
  const titleKey =
    title && isConceptName(title.name, titleLimits) && titleNames(title.name, title.afterLabel || title.trimmed)
      ? add(title.name, "topic", title.span)
      : undefined;
  const headingKeys = headings.map((heading) => {
    const raw = visible.slice(heading.text.start, heading.text.end);
    const cleaned = cleanMarkedName(raw);
    const name = subjectAfterLabel(cleaned)?.trim() ?? cleaned;
    if (!isConceptName(name, HEADING_LIMITS)) return undefined;
    return add(name, "topic", locate(raw, name, heading.text));
  });

  for (const mark of ofKind("work")) {
    // A work's title may read as a clause (思考，快与慢): only its length is checked.
    const name = displayLabel(mark.text);
    if ([...name].length <= WORK_MAX_CHARS && !isLayoutLabel(conceptKey(name))) add(name, "work", mark.span);
  }
  for (const mark of ofKind("code")) {
    if (isIdentifier(mark.text)) add(mark.text, "technology", mark.span);
  }
  for (const [kind, limits] of [["strong", STRONG_LIMITS], ["emphasis", EMPHASIS_LIMITS]] as const) {
    for (const mark of ofKind(kind)) {
      const name = cleanMarkedName(mark.text);
      if (isConceptName(name, limits)) add(name, "concept", locate(mark.text, name, mark.span));
    }
  }
  for (const mark of ofKind("name")) {
    const name = cleanMarkedName(mark.text);
    if (isConceptName(name, TYPOGRAPHIC_LIMITS) && (everyday === undefined || !everyday(conceptKey(name)))) add(name, "concept", locate(mark.text, name, mark.span));
  }
  return { drafts: [...drafts.values()], headingKeys, ...(titleKey ? { titleKey } : {}) };
}

/**
 * The title names a concept only when it is a short noun phrase ("Gradient descent", "人类简史");
 * "Book notes: Sapiens" and "读书笔记：人类简史" name what follows the generic label.
 */
function titleSubject(
  title: string,
  nlp: Pick<Nlp, "tagChinese">,
): { name: string; span: TextSpan; afterLabel: boolean; trimmed: boolean } | undefined {
  const subject = subjectAfterLabel(title) ?? workBeforeQualifier(title);
  if (subject === undefined && /[:：]/.test(title)) return undefined;
  const raw = subject ?? title;
  const shown = displayLabel(raw);
  const name = CJK.test(shown) ? chineseTitleTopic(shown, nlp) : shown;
  const start = title.indexOf(raw);
  return name
    ? { name, span: locate(raw, name, { start, end: title.length }), afterLabel: subject !== undefined, trimmed: name !== shown }
    : undefined;
}

// "Why Nations Fail, chapters 1–4", "Salt Fat Acid Heat — notes from the series", "The Guns of August (Barbara Tuchman)".
const QUALIFIED_TITLE = [/^(.+?)(?:\s+[—–-]\s+|\s+\()/u, /^(.+?),\s+(?!(?:and|or|&)\s)(?=[\p{Ll}\d])/u];

/**
 * A work's title in Title Case before a dash, a bracket or a comma and lowercase words: what follows says
 * which part, whose, or what kind of note; the title names the subject. Undefined when the title is not so.
 */
function workBeforeQualifier(title: string): string | undefined {
  if (CJK.test(title)) return undefined;
  for (const pattern of QUALIFIED_TITLE) {
    const head = pattern.exec(title)?.[1];
    if (head !== undefined) return isTitleCase(head) ? head : undefined;
  }
  return undefined;
}

const CJK = /[\p{Script=Han}]/u;
// What a Chinese title calls the note rather than its subject: 红烧肉做法, 大模型学习笔记, 知识图谱项目周会纪要.
const GENERIC_TITLE_WORDS = new Set(
  "笔记 读书笔记 学习笔记 学习 纪要 会议纪要 做法 攻略 合集 总结 入门 指南 教程 心得 窍门 小窍门 周会 例会 会议 记录 清单 复盘 分享 打卡 路线 项目 部分".split(" "),
);
// jieba's numerals and times (两天, 一夜, 第六, 3月14日) and anything that is not a word.
const COUNTED = (word: { word: string; tag: string }) => word.tag === "m" || word.tag === "t" || word.tag === "x" || word.tag === "mq" || !/[\p{L}]/u.test(word.word);

/**
 * The subject of a Chinese title: generic words, numbers and times at its end are dropped
 * (成都两天一夜 → 成都, 红烧肉做法 → 红烧肉); one still holding a number or a time is a clause
 * about the note (马拉松训练第六周 is kept as 马拉松训练), and names nothing when nothing is left.
 */
function chineseTitleTopic(name: string, nlp: Pick<Nlp, "tagChinese">): string | undefined {
  const words = nlp.tagChinese(name);
  // starts[i]: where word i begins; a generic word may span several of jieba's words (周 + 会).
  const starts: number[] = [];
  let length = 0;
  for (const { word } of words) {
    starts.push(length);
    length += word.length;
  }
  let end = words.length;
  for (;;) {
    const last = words[end - 1];
    if (!last) break;
    if (COUNTED(last) || last.word.trim() === "") {
      end--;
      continue;
    }
    const text = name.slice(0, starts[end - 1]! + last.word.length);
    const generic = [...GENERIC_TITLE_WORDS].find((word) => text.endsWith(word) && starts.indexOf(text.length - word.length) >= 0);
    if (!generic) break;
    end = starts.indexOf(text.length - generic.length);
  }
  const kept = words.slice(0, end);
  if (kept.length === 0 || kept.some((word) => word.tag === "m" || word.tag === "t")) return undefined;
  const topic = displayLabel(kept.map((word) => word.word).join(""));
  // Punctuation left inside (读《原则) means the title is not one name; a 《work》 in it is found as a mark.
  return [...topic].length >= 2 && !/[^\p{L}\p{N}\s·]/u.test(topic) ? topic : undefined;
}

/** `numpy`, `torch.nn`, `C++`: a name-like token, not an expression, command or path. */
function isIdentifier(code: string): boolean {
  return IDENTIFIER.test(code) && /\p{L}{2}/u.test(code) && !STOPWORDS.has(code.toLowerCase()) && !code.includes("://");
}

/** The span of `name` inside `raw` (which starts at `span.start`), or the whole span when markup splits it. */
function locate(raw: string, name: string, span: TextSpan): TextSpan {
  const at = raw.indexOf(name);
  return at < 0 ? span : { start: span.start + at, end: span.start + at + name.length };
}
