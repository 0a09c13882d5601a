import { z } from "zod";
import { MAX_QUERY_LENGTH } from "../search/parse-query";
import { MAX_TAG_UNITS, MAX_TAGS, MAX_TITLE_UNITS, normaliseLine } from "./note-text";

export const MAX_CONTENT_BYTES = 1024 * 1024;

export const noteIdSchema = z.coerce
  .number({ error: "Must be a positive integer id" })
  .int("Must be a positive integer id")
  .positive("Must be a positive integer id")
  .max(Number.MAX_SAFE_INTEGER);

/** zod's `.max()` counts code points; the contract counts UTF-16 code units, as JavaScript's `length` does. */
const withinUnits = (max: number) => [(value: string) => value.length <= max, `Too big: expected at most ${max} UTF-16 code units`] as const;

export const titleSchema = z
  .string()
  .overwrite(normaliseLine)
  .min(1)
  .refine(...withinUnits(MAX_TITLE_UNITS))
  .meta({
    maxLength: MAX_TITLE_UNITS,
    description: "1..500 UTF-16 code units once tab, LF and CR become spaces, other control characters are removed and the ends trimmed",
    example: "Reading notes: Thinking, Fast and Slow",
  });

export const contentSchema = z
  .string()
  .max(MAX_CONTENT_BYTES)
  .refine((value) => Buffer.byteLength(value, "utf8") <= MAX_CONTENT_BYTES, "Must be at most 1 MiB of UTF-8")
  // SQLite text ends at a NUL byte; refusing it is better than silently truncating the note.
  .refine((value) => !value.includes("\u0000"), "Must not contain NUL (\\u0000) characters")
  .describe("Markdown, up to 1 MiB")
  .meta({ example: "# Ideas\n\nSystem 1 is fast, **System 2** is slow." });

export const tagSchema = z
  .string()
  .overwrite(normaliseLine)
  .min(1)
  .refine(...withinUnits(MAX_TAG_UNITS))
  .meta({ maxLength: MAX_TAG_UNITS, description: "1..64 UTF-16 code units, normalised as titles are" });

/** Up to 32 tags; normalised, duplicates removed, order kept. */
export const tagsSchema = z
  .array(tagSchema)
  .max(MAX_TAGS)
  .transform((tags) => [...new Set(tags)])
  .meta({ example: ["books", "psychology"] });

const timestamps = { created_at: z.iso.datetime(), updated_at: z.iso.datetime() };

export const noteSourceSchema = z
  .object({
    platform: z.string().describe("The import platform: wechat, xiaohongshu, bilibili, douyin or web"),
    url: z.string().nullable().describe("The canonical URL; null for pasted content without one"),
    author: z.string().nullable().describe("The account, uploader or byline the page names; null when it names none"),
    published_at: z.iso.datetime().nullable().describe("When the page says it was published; null when it does not"),
  })
  .nullable()
  .describe("Where an imported note came from, as the import read it; null for a note written here. Only imports set it; PUT keeps it.")
  .meta({ id: "NoteSource" });

export const noteSchema = z
  .object({
    id: z.number().int().positive(),
    title: z.string(),
    content: z.string(),
    tags: z.array(z.string()),
    source: noteSourceSchema,
    ...timestamps,
  })
  .meta({ id: "Note" });

export const noteListItemSchema = z
  .object({
    id: z.number().int().positive(),
    title: z.string(),
    tags: z.array(z.string()),
    excerpt: z.string().describe("The first 200 characters of the content as plain text"),
    source: noteSourceSchema,
    ...timestamps,
    snippet: z
      .string()
      .optional()
      .describe("Only with `q`: at most 240 characters of the note's plain text around the best match (its start when only the title or tags match)"),
    highlights: z
      .array(z.tuple([z.number().int().min(0), z.number().int().min(0)]))
      .optional()
      .describe("Only with `q`: `[start, end)` UTF-16 offsets in `snippet` of each occurrence of a matched term (empty for a note found only by meaning)"),
    score: z
      .number()
      .optional()
      .describe("Only with `q`: how well the note matches, higher first (reciprocal rank fusion in `hybrid` and `lexical` mode, cosine similarity in `semantic`)"),
  })
  .meta({ id: "NoteListItem" });

export const MAX_PAGE = 1_000_000;

/** Shared by every paginated list (notes, tasks). */
export const pageQuery = {
  page: z.number().int().min(1).max(MAX_PAGE).default(1).describe("1-based page number"),
  size: z.number().int().min(1).max(100).default(20).describe("Items per page (1..100)"),
};

export function pageEnvelope<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int().min(0),
      page: z.number().int().min(1),
      size: z.number().int().min(1),
      pages: z.number().int().min(0),
    })
    .meta({ id });
}

export const searchQuerySchema = z
  .string()
  .refine((value) => value.length <= MAX_QUERY_LENGTH, `A search (q) is at most ${MAX_QUERY_LENGTH} characters`)
  .trim()
  .optional()
  .meta({
    maxLength: MAX_QUERY_LENGTH,
    description:
      'Full-text search (1..200 characters): every term must match; `"a phrase"`, `-excluded`, `prefix*`. Case, width and accents are ignored; Chinese and Japanese match any sequence of characters. Matches in the title or tags come first. A blank `q` is the plain list.',
    example: "知识图谱 -draft",
  });

export const searchModeSchema = z.enum(["hybrid", "lexical", "semantic"]);

export const listNotesInput = z
  .object({
    ...pageQuery,
    tag: tagSchema.optional().describe("Only notes with exactly this tag"),
    q: searchQuerySchema,
    mode: searchModeSchema
      .optional()
      .describe(
        "With `q`: `lexical` matches words; `semantic` matches meaning (embeddings); `hybrid` fuses both. Default `hybrid` when embeddings are set up (EMBEDDINGS_BASE_URL), else `lexical`. The envelope's `mode` says which was used: meaning falls back to words when the embeddings server cannot answer within 2 s.",
      ),
  })
  .prefault({});

export const notePageSchema = z
  .object({
    items: z.array(noteListItemSchema),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    size: z.number().int().min(1),
    pages: z.number().int().min(0),
    mode: searchModeSchema.optional().describe("Only with `q`: the mode the search actually used"),
  })
  .meta({ id: "NotePage" });
export const createNoteInput = z.object({ title: titleSchema, content: contentSchema.default(""), tags: tagsSchema.default([]) });
export const updateNoteInput = z.object({
  id: noteIdSchema,
  title: titleSchema.optional(),
  content: contentSchema.optional(),
  tags: tagsSchema.optional(),
  expected_updated_at: z.iso
    .datetime()
    .optional()
    .describe(
      "The `updated_at` you last read: when the note has changed since, the update is refused with 409 CONFLICT and nothing is written (no lost updates between two editors)",
    ),
});
export const noteIdInput = z.object({ id: noteIdSchema });
export const exportNotesInput = z
  .object({
    ids: z.array(z.number().int().positive()).max(10_000).optional().describe("Only these notes (others' ids are ignored)"),
    tag: tagSchema.optional().describe("Only notes with this tag"),
    include_graph: z
      .boolean()
      .default(false)
      .describe("Add `graph.json`: the nodes and edges (with `note_ids`) of GET /api/knowledge-graph?limit=5000; a graph read, so an access token needs `graph:read` for it (else 403)"),
  })
  .prefault({});

export type NoteRecord = z.infer<typeof noteSchema>;
export type NoteSource = z.infer<typeof noteSourceSchema>;
export type NoteListItem = z.infer<typeof noteListItemSchema>;
