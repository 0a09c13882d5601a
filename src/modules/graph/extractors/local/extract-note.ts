import { conceptKey, displayLabel } from "../../concept-key";
import type { ExtractedConcept, NoteExtraction, NoteForExtraction, TextSpan } from "../../extraction";
import { analyseNote } from "./analyse-note";
import { coOccurrences } from "./cooccurrence";
import { type CorpusStats, documentFrequencyOf, inverseDocumentFrequency, writtenVariant } from "./corpus";
import { sentenceReader } from "./describe";
import { type ConceptDraft, explicitConcepts } from "./explicit-concepts";
import { keyPhraseBudget, selectKeyPhrases } from "./keyphrases";
import { findMarks } from "./marks";
import { typographicMarks } from "./typography";
import { replayTags } from "./nlp";
import { findNameSpans, MAX_MENTIONS, MAX_OCCURRENCES, mergeSpans } from "./mentions";
import type { LocalParameters } from "./parameters";
import { type RelatableConcept, relateConcepts } from "./relations";
import { findHeadings, type Heading, type Section, sectionIndexAt, splitSections } from "./sections";
import type { TermIndex } from "./terms";

// Markup is the author's own statement that something matters; weigh it above a statistical guess.
const EXPLICIT_BOOST = 2;
const MIN_DESCRIPTION_LENGTH = 8;
const HAN = /\p{Script=Han}/u;
// How much commoner than an everyday word a tag must be to only file the note (a tenfold in Zipf; about e in jieba's IDF).
const FILING_MARGIN = 1;
// 【视频总结】, 【干货】 before a Chinese title say what kind of note it is.
const TITLE_GENRE = /^\s*【[^】\n]{1,12}】/u;

interface PlacedConcept extends ConceptDraft {
  occurrences: TextSpan[];
  salience: number;
  /** Mentions kept for the graph (MAX_MENTIONS unless said). */
  mentionLimit?: number;
}

/** Concepts and relations of one note, from its Markdown structure and its TF-IDF key phrases. */
export function extractNote(
  note: NoteForExtraction,
  corpus: CorpusStats,
  existingNames: ReadonlyMap<string, string>,
  parameters: Readonly<LocalParameters>,
): NoteExtraction {
  const recorded = corpus.tags.get(note);
  corpus.tags.delete(note);
  const analysed = analyseNote(note, recorded ? replayTags(corpus.nlp, recorded) : corpus.nlp);
  const { text, titleEnd, contentStart, analysedEnd, masked, terms } = analysed;
  const { visible } = masked;
  const headings = findHeadings(visible, contentStart);
  const sections = splitSections(visible, titleEnd, contentStart, headings);
  // The title is tagged apart from the note (a replayed tagger would hand back the note's own tags).
  const everyday = (key: string) =>
    HAN.test(key) ? (corpus.nlp.chineseIdf(key) ?? Infinity) < parameters.everydayIdf : corpus.nlp.englishZipf(key) >= parameters.everydayZipf;
  // A dictionary word common enough that a node of it weighs the notes it spreads over, not its mentions (see `background`).
  const common = (key: string) =>
    HAN.test(key) ? (corpus.nlp.chineseIdf(key) ?? Infinity) < parameters.backgroundIdf : corpus.nlp.englishZipf(key) >= parameters.backgroundZipf;
  // A tag that is among the commonest words (#books, #travel: ten times as common as an everyday word) files the note; it names no concept of it.
  const filing = (tag: string) => {
    const key = conceptKey(tag);
    if (/\s/.test(key)) return false;
    return HAN.test(key) ? (corpus.nlp.chineseIdf(key) ?? Infinity) < parameters.everydayIdf - FILING_MARGIN : corpus.nlp.englishZipf(key) >= parameters.everydayZipf + FILING_MARGIN;
  };
  const marks = [...findMarks(masked, text, contentStart), ...typographicMarks(masked.prose, contentStart, analysed.verbs)].filter(
    (mark) => mark.kind !== "hashtag" || !filing(mark.text),
  );
  const explicit = explicitConcepts({ title: note.title, tags: note.tags.filter((tag) => !filing(tag)) }, visible, headings, marks, corpus.nlp, (key) =>
    documentFrequencyOf(corpus, key) >= 2 || (terms.get(key)?.starts.some((start) => start >= contentStart) ?? false),
    everyday,
  );

  const titleSpan: TextSpan = { start: 0, end: titleEnd };
  const placed: PlacedConcept[] = explicit.drafts.map((draft) => {
    const occurrences = withNamesElsewhere(occurrencesOf(draft, terms, visible), draft.key, corpus, terms);
    const found = occurrences.length > 0 ? occurrences : [titleSpan];
    const salience = (1 + Math.log(found.length)) * inverseDocumentFrequency(corpus, draft.key) * EXPLICIT_BOOST;
    return { ...draft, occurrences: found, salience };
  });

  const prominent = [titleSpan, ...headings.map((heading) => heading.text)];
  const genre = TITLE_GENRE.exec(note.title);
  const phrases = selectKeyPhrases({
    terms,
    corpus,
    explicit: takenKeys(placed),
    existing: new Set(existingNames.keys()),
    prominent,
    ...(genre && { labels: [{ start: 0, end: genre[0].length }] }),
    specificity: (key) => corpus.nlp.chineseSpecificity(key),
    everyday,
    common,
    ...(explicit.titleKey ? { titleKey: explicit.titleKey } : {}),
    budget: keyPhraseBudget(masked.prose.slice(contentStart, analysedEnd), parameters.maxKeyPhrases, parameters.phraseSpacing, parameters.hanWidth),
    relativeFloor: parameters.relativeFloor,
    newWordCohesion: parameters.newWordCohesion,
  });
  for (const { term, score } of phrases) {
    const own = term.starts.slice(0, MAX_OCCURRENCES).map((start, index) => ({ start, end: term.ends[index]! }));
    const surface = phraseName(text, term.key, own);
    const occurrences = withNamesElsewhere(own, term.key, corpus, terms);
    // A plural seen alone is named in the singular when some note writes it ("vector databases" → "vector database"), the plural kept as an alias.
    const singular = writtenVariant(corpus, surface);
    const name = singular !== undefined && singular.length < surface.length ? singular : surface;
    placed.push({ key: term.key, name, type: "concept", aliases: name === surface ? [] : [surface], spans: [], occurrences, salience: score });
  }

  placed.push(...knownNamesWritten(terms, placed, existingNames, { contentStart, everyday, corpus, maxNotes: parameters.knownWordMaxNotes }));
  const describe = describer(visible, contentStart, analysedEnd, headings, sections, explicit.headingKeys, explicit.titleKey);
  // A node weighs its mentions. A single dictionary word ("training", 梯度) said often is the note's vocabulary, not its
  // subject: one mention a note, so it weighs the notes it spreads over and no specific name is outweighed by it.
  const background = (key: string) => {
    if (/\s/.test(key) || !common(key)) return false;
    const term = HAN.test(key) ? undefined : terms.get(key);
    return !term?.named && !term?.rare;
  };
  const concepts: ExtractedConcept[] = placed.map((concept) => ({
    name: existingNames.get(concept.key) ?? withoutEdgeEmoji(concept.name),
    type: concept.type,
    description: describe(concept),
    aliases: aliasesOf(concept, existingNames.get(concept.key) ?? concept.name, corpus),
    mentions: concept.occurrences.slice(0, concept.mentionLimit ?? (background(concept.key) ? 1 : MAX_MENTIONS)).map((span) => ({ ...span })),
  }));

  const relatable: RelatableConcept[] = placed.map((concept, index) => ({
    key: concept.key,
    name: concepts[index]!.name,
    salience: concept.salience,
    firstStart: concept.occurrences[0]!.start,
    sections: new Set(concept.occurrences.map((span) => sectionIndexAt(sections, span.start)).filter((at) => at >= 0)),
  }));
  const pairs = coOccurrences(
    visible,
    contentStart,
    analysedEnd,
    placed.map((concept, index) => ({ concept: index, spans: concept.occurrences })),
    analysed.verbs,
  );
  const relations = relateConcepts({
    pairs,
    concepts: relatable,
    sections,
    headingKeys: explicit.headingKeys,
    ...(explicit.titleKey ? { titleKey: explicit.titleKey } : {}),
  });
  return { concepts, relations, usage: { llm_calls: 0, input_tokens: 0, output_tokens: 0 } };
}

/**
 * Every other name the concept goes by, so entity resolution merges it across notes: its own aliases,
 * what the corpus states (acronym ↔ expansion, 简称, surname ↔ full name), the other grammatical number,
 * and the spelling with spaces for hyphens.
 */
function aliasesOf(concept: PlacedConcept, name: string, corpus: CorpusStats): string[] {
  const names = new Set(concept.aliases);
  for (const alias of corpus.aliases.get(concept.key) ?? []) names.add(alias);
  for (const alias of [name, ...names]) {
    // Only forms some note writes: merging needs no others, and a reader should not see an invented "hangzhous".
    const variant = writtenVariant(corpus, alias);
    if (variant) names.add(variant);
    // "retrieval-augmented generation" and "retrieval augmented generation" are one name.
    const spaced = /\p{L}-\p{L}/u.test(alias) ? alias.replace(/(?<=\p{L})-(?=\p{L})/gu, " ") : undefined;
    if (spaced && corpus.written.has(conceptKey(spaced))) names.add(spaced);
  }
  names.delete(name);
  return [...names].filter((alias) => conceptKey(alias) !== concept.key || alias !== name);
}

const EDGE_EMOJI = /^[\p{Extended_Pictographic}\uFE0F\u200D\s]+|[\p{Extended_Pictographic}\uFE0F\u200D\s]+$/gu;

/** "京都三日游攻略✨" is named "京都三日游攻略": decoration is not part of a name. */
function withoutEdgeEmoji(name: string): string {
  const bare = name.replace(EDGE_EMOJI, "");
  return bare.length > 0 ? bare : name;
}

/** Keys key phrases may not take: explicit concepts (with their occurrences) and their aliases. */
function takenKeys(placed: PlacedConcept[]): Map<string, readonly TextSpan[]> {
  const taken = new Map<string, readonly TextSpan[]>();
  for (const concept of placed) {
    taken.set(concept.key, concept.occurrences);
    for (const alias of concept.aliases) if (!taken.has(conceptKey(alias))) taken.set(conceptKey(alias), []);
  }
  return taken;
}

// A concept the graph already has, written in passing: one mention cites the note without weighing like a key phrase.
const KNOWN_NAME_MENTIONS = 1;

/**
 * Names the user's graph already has that this note writes in its content (a whole noun phrase, not an everyday
 * word) but did not pick: a concept recurring across notes is cited by each, so its notes meet in one node
 * ("Tokyo" said once in a Kyoto diary, "glycogen" in a race report). Looked up per term, so O(terms).
 */
function knownNamesWritten(
  terms: TermIndex,
  placed: PlacedConcept[],
  existingNames: ReadonlyMap<string, string>,
  { contentStart, everyday, corpus, maxNotes }: { contentStart: number; everyday: (key: string) => boolean; corpus: CorpusStats; maxNotes: number },
): PlacedConcept[] {
  if (existingNames.size === 0) return [];
  const taken = new Set(placed.flatMap((concept) => [concept.key, ...concept.aliases.map(conceptKey)]));
  const known: PlacedConcept[] = [];
  for (const [key, term] of terms) {
    const name = existingNames.get(key);
    if (name === undefined || taken.has(key) || term.alone === 0 || term.standalone === 0) continue;
    // A common word the graph has that many notes write ("threshold", 参数) would gather them all into one heavy node.
    if (term.size === 1 && !term.named && documentFrequencyOf(corpus, key) > maxNotes) continue;
    if ((term.size === 1 && everyday(key)) || !term.starts.some((start) => start >= contentStart)) continue;
    const occurrences = term.starts.slice(0, MAX_OCCURRENCES).map((start, index) => ({ start, end: term.ends[index]! }));
    known.push({ key, name, type: "concept", aliases: [], spans: [], occurrences, salience: 0, mentionLimit: KNOWN_NAME_MENTIONS });
    taken.add(key);
  }
  return known;
}

/**
 * A concept also occurs where the note writes another name the corpus knows for it: "Davis" after "Miles Davis",
 * "LLM" for "large language model". Those later mentions place it in the paragraphs it is related in.
 */
function withNamesElsewhere(occurrences: TextSpan[], key: string, corpus: CorpusStats, terms: TermIndex): TextSpan[] {
  const aliases = corpus.aliases.get(key);
  if (!aliases || occurrences.length === 0) return occurrences;
  const found = [...occurrences];
  for (const alias of aliases) {
    const term = terms.get(conceptKey(alias));
    if (term) found.push(...term.starts.slice(0, MAX_OCCURRENCES).map((start, at) => ({ start, end: term.ends[at]! })));
  }
  return found.length === occurrences.length ? occurrences : mergeSpans(found).slice(0, MAX_OCCURRENCES);
}

/** Where an explicit concept occurs: its markup, its prose occurrences (or a search for its name), and its aliases'. */
function occurrencesOf(draft: ConceptDraft, terms: TermIndex, visible: string): TextSpan[] {
  const found = [...draft.spans];
  for (const [index, name] of [draft.name, ...draft.aliases].entries()) {
    const term = terms.get(index === 0 ? draft.key : conceptKey(name));
    if (term) found.push(...term.starts.slice(0, MAX_OCCURRENCES).map((start, at) => ({ start, end: term.ends[at]! })));
    else found.push(...findNameSpans(visible, name, 0, MAX_OCCURRENCES));
  }
  return mergeSpans(found).slice(0, MAX_OCCURRENCES);
}

/**
 * Lowercase when the note ever writes it so (sentence-initial capitals are not names), else its usual
 * spelling; a spelling of the key itself wins over a merged plural.
 */
function phraseName(text: string, key: string, occurrences: TextSpan[]): string {
  const counts = new Map<string, number>();
  const surfaces = occurrences.slice(0, MAX_MENTIONS).map((span) => displayLabel(text.slice(span.start, span.end)));
  const exact = surfaces.filter((surface) => conceptKey(surface) === key);
  for (const surface of exact.length > 0 ? exact : surfaces) {
    if (surface === surface.toLowerCase()) return surface;
    counts.set(surface, (counts.get(surface) ?? 0) + 1);
  }
  let best = "";
  let bestCount = 0;
  for (const [surface, count] of counts) {
    if (count > bestCount) [best, bestCount] = [surface, count];
  }
  return best;
}

/**
 * A concept's description is the first sentence that mentions it outside the title and headings;
 * a heading or title topic without one gets the first sentence under it; otherwise "".
 */
function describer(
  visible: string,
  contentStart: number,
  analysedEnd: number,
  headings: Heading[],
  sections: Section[],
  headingKeys: (string | undefined)[],
  titleKey: string | undefined,
): (concept: PlacedConcept) => string {
  const headingLines = headings.map((heading) => heading.line);
  const inHeadingLine = (position: number) => headingLines.some((line) => position >= line.start && position < line.end);
  const sentences = sentenceReader(visible);
  return (concept) => {
    for (const span of concept.occurrences.slice(0, MAX_MENTIONS)) {
      if (span.start < contentStart || inHeadingLine(span.start)) continue;
      const sentence = sentences.at(span.start);
      // "#baking" alone on a line describes nothing.
      if (conceptKey(sentence.replace(/#[^\s#]+/gu, "")).length >= MIN_DESCRIPTION_LENGTH) return sentence;
    }
    const headingIndex = headingKeys.indexOf(concept.key);
    const section = sections.find((candidate) => candidate.heading === headingIndex);
    if (headingIndex >= 0 && section) {
      return sentences.firstIn(headings[headingIndex]!.line.end, section.span.end, headingLines);
    }
    if (concept.key === titleKey) return sentences.firstIn(contentStart, analysedEnd, headingLines);
    return "";
  };
}
