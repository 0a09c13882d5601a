import type { StructuredOutputStep } from "../llm/providers/openai-structured";
import type { LlmUsage } from "../llm/usage";

/** What an extractor (LLM or local) reports for one note. Spans index into `noteText(note)`. */
export interface TextSpan {
  start: number;
  end: number;
}

export interface ExtractedConcept {
  name: string;
  /** A short category such as "person", "technology", "idea", "place", "organization", "topic". */
  type: string;
  description: string;
  /** Other names the source uses for the same concept. */
  aliases: string[];
  /** Where the concept is mentioned; at least one span. */
  mentions: TextSpan[];
}

export interface ExtractedRelation {
  /** Concept names as given in `concepts` (or an alias of one). */
  source: string;
  target: string;
  label: string;
  /** The passage that states the relation, when known. */
  span?: TextSpan;
}

/** Calls and tokens, with `estimated` when a server left its usage out. */
export type ExtractionUsage = LlmUsage;

export interface NoteExtraction {
  concepts: ExtractedConcept[];
  relations: ExtractedRelation[];
  usage: ExtractionUsage;
}

export interface NoteForExtraction {
  id: number;
  title: string;
  content: string;
  tags: string[];
}

export interface ExtractionContext {
  /** Names of concepts already in the user's graph, so the extractor reuses them. */
  existingConcepts: string[];
  signal?: AbortSignal;
  budget?: CallBudget;
}

export type ExtractorName = "anthropic" | "openai" | "local";

export interface Extractor {
  readonly name: ExtractorName;
  extract(note: NoteForExtraction, context: ExtractionContext): Promise<NoteExtraction>;
  /** The calls and tokens `extract` would spend on the note (none for the local extractor), without spending them. */
  estimate?(note: NoteForExtraction, existingConcepts: string[]): ExtractionUsage;
  /** The structured-output step the server accepted last (OpenAI-compatible servers), for the build status. */
  structuredOutput?(): StructuredOutputStep;
}

/** The text spans refer to: the title, a blank line, then the content. */
export function noteText(note: Pick<NoteForExtraction, "title" | "content">): string {
  return `${note.title}\n\n${note.content}`;
}

/** A build's cap on LLM calls and input tokens, shared by the notes in flight. */
export interface CallBudget {
  /** Reserves one call of about `inputTokens`; false (and nothing reserved) when it would pass a cap. */
  take(inputTokens: number): boolean;
  /** After the call: its real input tokens, or `answered: false` to give the reservation back. */
  settle(reservedTokens: number, inputTokens: number, answered: boolean): void;
}

/** The build's budget refused the next call; the note is left for the next build. */
export class BudgetExhaustedError extends Error {
  override name = "BudgetExhaustedError";
  constructor(readonly usage: ExtractionUsage) {
    super("The build's LLM budget is spent");
  }
}
