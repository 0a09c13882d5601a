import { conceptKey } from "../../concept-key";
import type { NoteForExtraction } from "../../extraction";
import { analyseNote } from "./analyse-note";

/** How many of the user's notes contain each candidate phrase (by concept key): the IDF half of TF-IDF. */
export interface CorpusStats {
  documentCount: number;
  /** Only keys found in two or more notes; a missing key counts as one note. */
  documentFrequency: ReadonlyMap<string, number>;
}

export function buildCorpusStats(notes: Iterable<NoteForExtraction>): CorpusStats {
  const frequency = new Map<string, number>();
  let documentCount = 0;
  for (const note of notes) {
    documentCount++;
    for (const key of noteTermKeys(note)) frequency.set(key, (frequency.get(key) ?? 0) + 1);
  }
  // Most phrases occur in one note only; dropping them keeps a large corpus small without changing any score.
  for (const [key, count] of frequency) if (count < 2) frequency.delete(key);
  return { documentCount, documentFrequency: frequency };
}

/** The candidate phrase keys and tag keys of one note, each once. */
export function noteTermKeys(note: NoteForExtraction): Iterable<string> {
  const terms = analyseNote(note).terms;
  const tagKeys = note.tags.map(conceptKey).filter((key) => key.length > 0 && !terms.has(key));
  return [...terms.keys(), ...new Set(tagKeys)];
}

/** Smoothed IDF: 1 for a phrase in every note (or with no corpus), growing as the phrase gets rarer. */
export function inverseDocumentFrequency(corpus: CorpusStats, key: string): number {
  const count = corpus.documentFrequency.get(key) ?? Math.min(1, corpus.documentCount);
  return Math.log((corpus.documentCount + 1) / (count + 1)) + 1;
}
