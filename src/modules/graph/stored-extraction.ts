import { z } from "zod";
import type { NoteExtraction, TextSpan } from "./extraction";
import { conceptKey } from "./concept-key";

/** A note's extraction as kept in graph_note_extractions: spans carry the passage they point at. */
const spanSchema = z.object({ start: z.number().int(), end: z.number().int(), passage: z.string() });

export const storedExtractionSchema = z.object({
  concepts: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      description: z.string(),
      aliases: z.array(z.string()),
      mentions: z.array(spanSchema),
    }),
  ),
  relations: z.array(z.object({ source: z.string(), target: z.string(), label: z.string(), span: spanSchema.optional() })),
});

export type StoredExtraction = z.infer<typeof storedExtractionSchema>;

const PASSAGE_CONTEXT = 120;
const MAX_MENTIONS_PER_CONCEPT = 20;

/** Keeps the passage around each span (widened to line ends, at most ~300 characters). */
export function toStoredExtraction(extraction: NoteExtraction, text: string): StoredExtraction {
  const passage = (span: TextSpan) => passageAround(text, span);
  return {
    concepts: extraction.concepts.map((concept) => ({
      name: concept.name,
      type: concept.type,
      description: concept.description,
      aliases: concept.aliases,
      mentions: concept.mentions.slice(0, MAX_MENTIONS_PER_CONCEPT).map((span) => ({ ...span, passage: passage(span) })),
    })),
    relations: extraction.relations.map((relation) => ({
      source: relation.source,
      target: relation.target,
      label: relation.label,
      ...(relation.span && { span: { ...relation.span, passage: passage(relation.span) } }),
    })),
  };
}

function passageAround(text: string, span: TextSpan): string {
  let start = Math.max(0, span.start - PASSAGE_CONTEXT);
  let end = Math.min(text.length, span.end + PASSAGE_CONTEXT);
  const lineStart = text.lastIndexOf("\n", span.start - 1) + 1;
  const lineEnd = text.indexOf("\n", span.end);
  start = Math.max(start, lineStart);
  end = Math.min(end, lineEnd === -1 ? text.length : lineEnd);
  const body = text.slice(start, end).trim();
  return `${start > lineStart ? "…" : ""}${body}${end < (lineEnd === -1 ? text.length : lineEnd) ? "…" : ""}`;
}

/** A stored result, or null when it does not parse (a row written by an older, different shape). */
export function parseStoredExtraction(json: string): StoredExtraction | null {
  const parsed = storedExtractionSchema.safeParse(JSON.parse(json));
  return parsed.success ? parsed.data : null;
}

/** Every concept key a stored result names (concepts and their aliases). */
export function extractionKeys(extraction: StoredExtraction): string[] {
  return extraction.concepts.flatMap((concept) => [concept.name, ...concept.aliases].map(conceptKey).filter(Boolean));
}
