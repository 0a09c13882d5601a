import { z } from "zod";
import { truncateText } from "../../../llm/chunk-text";

export const TOOL_NAME = "record_knowledge_graph";

export const CONCEPT_TYPES = [
  "person",
  "organization",
  "place",
  "technology",
  "idea",
  "method",
  "event",
  "work",
  "topic",
  "other",
] as const;

export const LIMITS = {
  concepts: 30,
  relations: 60,
  aliases: 8,
  name: 100,
  description: 200,
  evidence: 300,
  label: 60,
} as const;

// Over-long free text is cut rather than failing the whole note; the JSON schema still shows the limit.
const boundedText = (max: number) =>
  z
    .string()
    .overwrite((value) => truncateText(value.trim(), max))
    .max(max);

const conceptName = z.string().trim().min(1).max(LIMITS.name);

const conceptSchema = z.object({
  name: conceptName.describe("Short canonical noun phrase, in the note's language."),
  type: z
    .preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), z.enum(CONCEPT_TYPES))
    .catch("other")
    .describe("The kind of concept."),
  description: boundedText(LIMITS.description).default("").describe("One sentence on what it is, from the note."),
  aliases: z
    .array(z.string())
    .overwrite((aliases) =>
      aliases
        .map((alias) => alias.trim())
        .filter((alias) => alias.length > 0 && alias.length <= LIMITS.name)
        .slice(0, LIMITS.aliases),
    )
    .max(LIMITS.aliases)
    .default([])
    .describe("Other names the note uses for the same concept."),
  evidence: boundedText(LIMITS.evidence)
    .default("")
    .describe("A short quote copied verbatim from the note text where the concept is mentioned."),
});

const relationSchema = z.object({
  source: conceptName.describe("The name of a concept listed in `concepts`."),
  target: conceptName.describe("The name of another concept listed in `concepts`."),
  label: z.string().trim().min(1).overwrite((label) => truncateText(label, LIMITS.label)).max(LIMITS.label)
    .describe("Short verb phrase, e.g. \"invented\", \"is part of\", \"uses\"."),
  evidence: boundedText(LIMITS.evidence)
    .default("")
    .describe("A short quote copied verbatim from the note text that states the relation."),
});

/** What the model must pass to the tool; the same schema validates its answer. */
export const knowledgeGraphSchema = z.object({
  concepts: z
    .array(conceptSchema)
    .overwrite((concepts) => concepts.slice(0, LIMITS.concepts))
    .max(LIMITS.concepts)
    .describe("The significant concepts of the note."),
  relations: z
    .array(relationSchema)
    .overwrite((relations) => relations.slice(0, LIMITS.relations))
    .max(LIMITS.relations)
    .default([])
    .describe("Relations stated or clearly implied by the note, between listed concepts."),
});

export type KnowledgeGraphAnswer = z.infer<typeof knowledgeGraphSchema>;
export type AnswerConcept = KnowledgeGraphAnswer["concepts"][number];
export type AnswerRelation = KnowledgeGraphAnswer["relations"][number];

/**
 * The answer's JSON schema, sent by every LLM extractor (as a tool's parameters, a response format
 * or in the prompt); `$schema` is dropped because the APIs want a bare object schema.
 */
export function knowledgeGraphJsonSchema(): Record<string, unknown> & { type: "object" } {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(knowledgeGraphSchema) as Record<string, unknown>;
  return { ...schema, type: "object" };
}

export const TOOL_DESCRIPTION =
  "Records the concepts mentioned in one note of a personal knowledge base and the relations between them.";

/** One short line naming the first problems, never the model's raw output. */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "input";
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length > shown.length ? ` (+${error.issues.length - shown.length} more)` : "";
  return shown.join("; ") + more;
}
