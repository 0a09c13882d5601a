import { conceptKey } from "../../concept-key";
import type { NoteForExtraction } from "../../extraction";
import { type AliasPair, acronymKey, numberVariant, phraseInitials, statedAliases, surnameOf } from "./aliases";
import { analyseNote } from "./analyse-note";
import { loadNlp, type Nlp, type RecordedTags, recordTags } from "./nlp";

/** What the user's whole corpus says about a phrase: how many notes hold it (the IDF half of TF-IDF), and its other names. */
export interface CorpusStats {
  documentCount: number;
  /** Only keys found in two or more notes, in the singular (see `documentFrequencyOf`); a missing key counts as one note. */
  documentFrequency: ReadonlyMap<string, number>;
  /** Other names of a concept by key: stated in some note (acronyms, 简称), or a full name for an unambiguous surname. */
  aliases: ReadonlyMap<string, readonly string[]>;
  /** Every phrase key some note writes (and every tag): an alias or a name must be one of these, never an invented plural. */
  written: ReadonlySet<string>;
  /** Latin words some note writes in lower case: a common noun, where a word always capitalised ("Tokyo") is a name. */
  lowercase: ReadonlySet<string>;
  nlp: Nlp;
  /** The tags of each note read for these statistics, until the note is extracted (then dropped). */
  tags: WeakMap<NoteForExtraction, RecordedTags>;
}

/** What one note contributes to the corpus statistics. */
interface NoteFacts {
  keys: string[];
  aliases: AliasPair[];
  /** Acronyms the note uses ("LLMs"), and its Latin phrases of two or more words by their initials. */
  acronyms: string[];
  phrases: [initials: string, phrase: string][];
  /** Full names and their surnames. */
  names: [full: string, surname: string][];
  /** Keys of words the note writes capitalised on their own (not after another capitalised word): "Kahneman", not "Lake" of "West Lake". */
  titled: string[];
  /** Keys of Latin words the note writes in lower case somewhere. */
  lowercase: string[];
}

// A build reads only new or changed notes: the facts of the others are kept by content (bounded).
const MAX_CACHED_NOTES = 50_000;
const factsCache = new Map<number | bigint, NoteFacts>();

export async function buildCorpusStats(notes: Iterable<NoteForExtraction>): Promise<CorpusStats> {
  const nlp = await loadNlp();
  const frequency = new Map<string, number>();
  const stated: AliasPair[] = [];
  const fullNames = new Map<string, { surname: string; full: Set<string> }>();
  const written = new Set<string>();
  const titled = new Set<string>();
  const lowercase = new Set<string>();
  const acronyms = new Map<string, string>();
  const expansions = new Map<string, Map<string, string>>();
  const tags = new WeakMap<NoteForExtraction, RecordedTags>();
  let documentCount = 0;
  for (const note of notes) {
    documentCount++;
    const facts = noteFacts(note, nlp, tags);
    // Counted in the singular, so "vector databases" in one note and "vector database" in another recur.
    for (const key of new Set(facts.keys.map(singularKey))) frequency.set(key, (frequency.get(key) ?? 0) + 1);
    for (const key of facts.keys) written.add(key);
    for (const key of facts.titled) titled.add(key);
    for (const key of facts.lowercase) lowercase.add(key);
    stated.push(...facts.aliases);
    for (const acronym of facts.acronyms) if (!acronyms.has(acronymKey(acronym)!)) acronyms.set(acronymKey(acronym)!, acronym);
    for (const [initials, phrase] of facts.phrases) {
      if (!expansions.has(initials)) expansions.set(initials, new Map());
      expansions.get(initials)!.set(singularKey(phrase), phrase);
    }
    for (const [full, surname] of facts.names) {
      const key = conceptKey(surname);
      if (!fullNames.has(key)) fullNames.set(key, { surname, full: new Set() });
      fullNames.get(key)!.full.add(full);
    }
  }
  const aliases = new Map<string, Set<string>>();
  const link = (name: string, alias: string) => {
    const key = conceptKey(name);
    if (!aliases.has(key)) aliases.set(key, new Set());
    aliases.get(key)!.add(alias);
  };
  // An acronym the corpus uses and one phrase with its initials (singular and plural alike): "LLMs" and "large language models".
  for (const [key, acronym] of acronyms) {
    const candidates = expansions.get(key);
    if (candidates?.size !== 1) continue;
    const [expansion] = candidates.values();
    stated.push([expansion!, acronym]);
  }
  for (const [name, alias] of stated) {
    link(name, alias);
    link(alias, name);
  }
  // A surname stands for the full name only when the corpus knows one person by it and writes it alone,
  // capitalised: "the theory" in a note on Prospect Theory is no surname, nor "Lake" of "West Lake".
  for (const [key, { surname, full }] of fullNames) {
    if (full.size !== 1 || !titled.has(key)) continue;
    const [name] = full;
    link(name!, surname);
    link(surname, name!);
  }
  // Most phrases occur in one note only; dropping them keeps a large corpus small without changing any score.
  for (const [key, count] of frequency) if (count < 2) frequency.delete(key);
  return {
    documentCount,
    documentFrequency: frequency,
    aliases: new Map([...aliases].map(([key, names]) => [key, [...names].sort()])),
    written,
    lowercase,
    nlp,
    tags,
  };
}

const BASIC_HAN = /^[\u4E00-\u9FFF]+$/;

/** "large language models" and "large language model" are one expansion. */
function singularKey(phrase: string): string {
  // Basic Han is its own key and has no grammatical number: the commonest case in a Chinese corpus, asked for per term.
  if (BASIC_HAN.test(phrase)) return phrase;
  const key = conceptKey(phrase);
  const variant = numberVariant(key);
  return variant !== undefined && variant.length < key.length ? variant : key;
}

function noteFacts(note: NoteForExtraction, nlp: Nlp, tags: WeakMap<NoteForExtraction, RecordedTags>): NoteFacts {
  // A 64-bit hash of the note, not its text: the cache must not keep every note's text alive.
  const cacheKey = Bun.hash(`${note.title}\u0000${note.content}\u0000${note.tags.join("\u0000")}`);
  const cached = factsCache.get(cacheKey);
  if (cached) return cached;
  const recorded: RecordedTags = {};
  const analysed = analyseNote(note, recordTags(nlp, recorded));
  tags.set(note, recorded);
  const { terms } = analysed;
  const tagKeys = note.tags.map(conceptKey).filter((key) => key.length > 0 && !terms.has(key));
  const names: NoteFacts["names"] = [];
  const titled: string[] = [];
  const lowercase: string[] = [];
  const acronyms: string[] = [];
  const phrases: NoteFacts["phrases"] = [];
  for (const term of terms.values()) {
    // A word string the tagger did not read as a phrase names no acronym and no person: only its key is counted.
    if (term.repeated) continue;
    const initials = phraseInitials(term.key);
    if (initials) phrases.push([initials, analysed.text.slice(term.starts[0]!, term.ends[0]!)]);
    else if (term.size === 1) {
      const acronym = acronymKey(analysed.text.slice(term.starts[0]!, term.ends[0]!));
      if (acronym) acronyms.push(analysed.text.slice(term.starts[0]!, term.ends[0]!));
    }
    if (term.size === 1 && writtenTitled(analysed.text, term)) titled.push(term.key);
    if (term.size === 1 && writtenLowercase(analysed.text, term)) lowercase.push(term.key);
    if (term.size < 2 && !term.key.includes("·")) continue;
    const surface = analysed.text.slice(term.starts[0]!, term.ends[0]!);
    const surname = surnameOf(surface);
    if (surname) names.push([surface, surname]);
  }
  const facts: NoteFacts = {
    keys: [...terms.keys(), ...new Set(tagKeys)],
    aliases: statedAliases(analysed.masked.prose, terms),
    acronyms,
    phrases,
    names,
    titled,
    lowercase,
  };
  if (factsCache.size >= MAX_CACHED_NOTES) factsCache.delete(factsCache.keys().next().value!);
  factsCache.set(cacheKey, facts);
  return facts;
}

const TITLE_WORD = /^\p{Lu}\p{Ll}+$/u;
const AFTER_TITLED_WORD = /\p{Lu}\p{Ll}*[ \t]+$/u;

/** Some occurrence is capitalised and not the tail of a longer capitalised name. */
function writtenTitled(text: string, term: { starts: number[]; ends: number[] }): boolean {
  return term.starts.some((start, at) => {
    const first = text.charCodeAt(start);
    // Most words start in lower case (or are Han): no slicing for them.
    if (first < 0x80 && (first < 65 || first > 90)) return false;
    return TITLE_WORD.test(text.slice(start, term.ends[at]!)) && !AFTER_TITLED_WORD.test(text.slice(Math.max(0, start - 40), start));
  });
}

/** Some occurrence starts with a lowercase Latin letter. */
function writtenLowercase(text: string, term: { starts: number[] }): boolean {
  return term.starts.some((start) => {
    const first = text.charCodeAt(start);
    return (first >= 97 && first <= 122) || (first >= 0xdf && /^\p{Ll}/u.test(text[start]!));
  });
}

/**
 * The other grammatical number of a name when some note writes it ("Transformers" heading, "Transformer"
 * in prose), else undefined: an alias is a form the notes contain, never an invented "algaes".
 */
export function writtenVariant(corpus: Pick<CorpusStats, "written">, name: string): string | undefined {
  // Asked for the same names note after note: remembered per corpus.
  let known = writtenVariants.get(corpus);
  if (!known) writtenVariants.set(corpus, (known = new Map()));
  if (known.has(name)) return known.get(name);
  const found = findWrittenVariant(corpus, name);
  if (known.size < MAX_REMEMBERED_VARIANTS) known.set(name, found);
  return found;
}

const writtenVariants = new WeakMap<object, Map<string, string | undefined>>();
const MAX_REMEMBERED_VARIANTS = 50_000;

function findWrittenVariant(corpus: Pick<CorpusStats, "written">, name: string): string | undefined {
  let variant = numberVariant(name);
  if (variant === undefined) {
    // A capitalised last word may be a name ("Kahneman") or a heading's noun ("Transformers"): only what is written decides.
    const last = name.lastIndexOf(" ") + 1;
    if (/^\p{Lu}\p{Ll}+$/u.test(name.slice(last))) {
      const lower = numberVariant(name.slice(0, last) + name.slice(last).toLowerCase());
      if (lower !== undefined) variant = lower.slice(0, last) + lower[last]!.toUpperCase() + lower.slice(last + 1);
    }
  }
  return variant !== undefined && corpus.written.has(conceptKey(variant)) ? variant : undefined;
}

/** How many notes hold a phrase, singular and plural alike (0 for one note or none). */
export function documentFrequencyOf(corpus: Pick<CorpusStats, "documentFrequency">, key: string): number {
  return corpus.documentFrequency.get(singularKey(key)) ?? 0;
}

/** Smoothed IDF: 1 for a phrase in every note (or with no corpus), growing as the phrase gets rarer. */
export function inverseDocumentFrequency(corpus: Pick<CorpusStats, "documentCount" | "documentFrequency">, key: string): number {
  const count = corpus.documentFrequency.get(singularKey(key)) ?? Math.min(1, corpus.documentCount);
  return Math.log((corpus.documentCount + 1) / (count + 1)) + 1;
}
