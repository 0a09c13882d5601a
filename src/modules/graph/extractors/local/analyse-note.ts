import { type NoteForExtraction, noteText, type TextSpan } from "../../extraction";
import { type MaskedText, maskNoteText } from "./markdown-mask";
import type { Nlp } from "./nlp";
import { collectTerms, type TermIndex } from "./terms";

/** Beyond this many characters a note is read no further: keeps pathological notes (logs, dumps) cheap. */
export const MAX_ANALYSED_CHARS = 200_000;

/** The parts of a note both the corpus statistics and the extractor read. */
export interface AnalysedNote {
  text: string;
  titleEnd: number;
  contentStart: number;
  /** Offsets at or after this are not analysed. */
  analysedEnd: number;
  masked: MaskedText;
  terms: TermIndex;
  /** Where the verbs are (ascending): relation labels. */
  verbs: TextSpan[];
}

export function analyseNote(note: Pick<NoteForExtraction, "title" | "content">, nlp: Nlp): AnalysedNote {
  const text = noteText(note);
  const titleEnd = note.title.length;
  const contentStart = titleEnd + 2;
  const analysedEnd = Math.min(text.length, contentStart + MAX_ANALYSED_CHARS);
  const masked = maskNoteText(text.slice(0, analysedEnd), contentStart);
  const verbs: TextSpan[] = [];
  const terms = collectTerms(masked.prose, 0, analysedEnd, nlp, verbs);
  return { text, titleEnd, contentStart, analysedEnd, masked, terms, verbs };
}
