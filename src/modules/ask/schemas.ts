import { z } from "zod";

export const MAX_QUESTION_UNITS = 500;
export const MAX_ASK_LIMIT = 20;
export const DEFAULT_ASK_LIMIT = 8;

// Line breaks and tabs become spaces and other control characters go: a question is one line of text.
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g;

export const askInput = z.object({
  question: z
    .string()
    .refine((value) => value.length <= MAX_QUESTION_UNITS, `Too big: expected at most ${MAX_QUESTION_UNITS} UTF-16 code units`)
    .overwrite((value) => value.replace(CONTROLS, " ").replace(/\s+/g, " ").trim())
    .min(1, "Must hold some text besides spaces and control characters")
    .meta({
      maxLength: MAX_QUESTION_UNITS,
      description: "1..500 UTF-16 code units; control characters count as spaces. Plain words: no search syntax is needed or read",
      example: "What did Kahneman say about anchoring?",
    }),
  limit: z.number().int().min(1).max(MAX_ASK_LIMIT).default(DEFAULT_ASK_LIMIT).describe("How many passages to return (1..20, default 8)"),
});

export type AskInput = z.infer<typeof askInput>;

const id = () => z.number().int().positive();
const offset = () => z.number().int().min(0);
const conceptRef = z.object({ id: id(), label: z.string() }).meta({ id: "AskConcept" });

export const askPassageSchema = z
  .object({
    note_id: id(),
    title: z.string().describe("The note's title"),
    start: offset().describe("UTF-16 offset in the note's content where the passage starts"),
    end: offset().describe("UTF-16 offset where it ends: `text` is exactly `content.slice(start, end)`"),
    text: z.string().describe("The passage: a paragraph, or whole sentences of a long one; at most about 1,000 characters"),
    score: z.number().describe("Its fused rank score (higher is better); comparable within one answer only"),
    concepts: z.array(conceptRef).describe("The graph's concepts the passage mentions"),
    page: z
      .union([z.number().int().positive(), z.string()])
      .nullable()
      .describe("The page of an imported document the passage is on: N of the nearest `[p. N]` line at or before it — a number (12), or the page's label as written when it is not one (\"iii\") — else null; an answer can say \"p. 12\""),
    picture: z.number().int().positive().nullable().describe("N of the nearest `[picture N]` link (text read from the note's Nth picture) at or before it, else null"),
  })
  .meta({ id: "AskPassage" });

export const askCitationSchema = z
  .object({
    note_id: id(),
    title: z.string(),
    start: offset(),
    end: offset(),
    quote: z.string().describe("Exactly `content.slice(start, end)` of the note"),
  })
  .meta({ id: "AskCitation" });

export const askUsageSchema = z
  .object({ llm_calls: z.number().int().min(0), input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) })
  .meta({ id: "AskUsage" });

export const askResultSchema = z
  .object({
    question: z.string().describe("The question as read (control characters as spaces, trimmed)"),
    answer: z
      .string()
      .nullable()
      .describe("The LLM's answer in the question's language, each statement marked `[n]` (1-based into `citations`); null without an LLM or when it failed"),
    answered_by: z.enum(["anthropic", "openai"]).nullable().describe("Which LLM answered; null with the local extractor"),
    passages: z.array(askPassageSchema).describe("The best passages of your notes, best first: the answer without an LLM"),
    citations: z.array(askCitationSchema),
    concepts: z.array(conceptRef).describe("The graph's concepts the question named (by label or alias)"),
    usage: askUsageSchema.describe("LLM calls and tokens this question spent"),
    error: z.string().nullable().describe("Why there is no answer although an LLM is configured; the passages are still returned"),
  })
  .meta({ id: "AskResult" });

export type AskResult = z.infer<typeof askResultSchema>;
export type AskPassage = z.infer<typeof askPassageSchema>;
export type AskCitation = z.infer<typeof askCitationSchema>;
