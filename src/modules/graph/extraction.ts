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

export interface ExtractionUsage {
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
}

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
}

export interface Extractor {
  readonly name: "anthropic" | "local";
  extract(note: NoteForExtraction, context: ExtractionContext): Promise<NoteExtraction>;
}

/** The text spans refer to: the title, a blank line, then the content. */
export function noteText(note: Pick<NoteForExtraction, "title" | "content">): string {
  return `${note.title}\n\n${note.content}`;
}
