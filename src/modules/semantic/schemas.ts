import { z } from "zod";
import { noteIdSchema } from "../notes/schemas";

export const searchStatusSchema = z
  .object({
    mode: z.enum(["hybrid", "lexical"]).describe("What a search with `q` uses by default now: `lexical` until embeddings are set up and your notes embedded"),
    model: z.string().nullable().describe("EMBEDDINGS_MODEL, or null when search by meaning is not set up"),
    dimensions: z.number().int().nullable().describe("The vectors' length (known once the first arrive)"),
    notes_total: z.number().int().min(0),
    notes_embedded: z.number().int().min(0).describe("Your notes whose current text is embedded"),
    pending: z.number().int().min(0).describe("Your notes waiting to be embedded (new, edited, or all after a model change)"),
    error: z.string().nullable().describe("Why embedding stopped or keeps failing (the variable to check), or null"),
  })
  .meta({ id: "SearchStatus" });

export const relatedInput = z.object({
  id: noteIdSchema,
  limit: z.number().int().min(1).max(50).default(10).describe("At most this many notes (1..50)"),
});

export const relatedNotesSchema = z
  .object({
    items: z.array(
      z.object({
        id: z.number().int().positive(),
        title: z.string(),
        excerpt: z.string(),
        score: z.number().describe("Cosine similarity of meaning; with no embeddings, the share of the note's concepts the other note mentions too"),
      }),
    ),
  })
  .meta({ id: "RelatedNotes" });

export const mergeSuggestionsInput = z.object({ limit: z.number().int().min(1).max(100).default(20).describe("At most this many pairs (1..100)") }).prefault({});

export const mergeSuggestionsSchema = z
  .object({
    items: z.array(
      z.object({
        nodes: z.array(z.object({ id: z.number().int().positive(), label: z.string() })).length(2),
        score: z.number().describe("Cosine similarity of the two labels' meanings (each label embedded alone, without its description), at least 0.8"),
      }),
    ),
  })
  .meta({ id: "MergeSuggestions" });
