import { z } from "zod";
import { pageEnvelope, pageQuery } from "../notes/schemas";

export const MIN_MAX_INPUT_TOKENS = 1000;

export const buildInput = z
  .object({
    mode: z
      .enum(["incremental", "full"])
      .default("incremental")
      .describe("incremental: only new, changed or outdated notes (and what deleted notes contributed); full: drop the graph and re-extract every note"),
    dry_run: z.boolean().default(false).describe("Answer 200 with what the build would extract, remove and cost, without any LLM call and without starting it"),
    max_llm_calls: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Cap on this build's LLM calls (default GRAPH_MAX_LLM_CALLS, else none); at the cap the build ends completed with budget_exhausted"),
    max_input_tokens: z
      .number()
      .int()
      .min(MIN_MAX_INPUT_TOKENS)
      .optional()
      .describe("Cap on this build's input tokens; no call that would pass it is started"),
  })
  .prefault({});

const count = () => z.number().int().min(0);
const EXTRACTORS = ["anthropic", "openai", "local"] as const;
/** A stored extractor name as the API spells it (rows older than an extractor read as local). */
export const extractorName = (stored: string): (typeof EXTRACTORS)[number] =>
  (EXTRACTORS as readonly string[]).includes(stored) ? (stored as (typeof EXTRACTORS)[number]) : "local";
const extractorFields = {
  extractor: z.enum(EXTRACTORS).describe("Which extractor builds (built) the graph: anthropic (Messages API), openai (any OpenAI-compatible Chat Completions server) or local"),
  model: z.string().nullable().describe("The LLM model; null for the local extractor"),
};
const usageSchema = z.object({ llm_calls: count(), input_tokens: count(), output_tokens: count() });

export const buildStatusSchema = z
  .object({
    status: z.enum(["idle", "building", "completed", "failed"]).describe("idle: never built"),
    progress: z.number().int().min(0).max(100),
    message: z.string(),
    mode: z.enum(["incremental", "full"]).nullable(),
    build_id: z.number().int().positive().nullable(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    notes_total: count().describe("Notes this build extracts from"),
    notes_processed: count(),
    nodes: count().describe("Nodes in the current graph"),
    edges: count().describe("Edges in the current graph"),
    error: z.string().nullable(),
    failed_notes: z
      .array(z.object({ note_id: z.number().int(), error: z.string() }))
      .describe("Notes whose extraction failed in this build; the build went on without them"),
    budget_exhausted: z.boolean().describe("The build stopped starting LLM calls at its cap; the next incremental build goes on with the notes left"),
    ...extractorFields,
    structured_output: z
      .enum(["tools", "json_schema", "json_object", "text"])
      .nullable()
      .describe("How the provider was made to answer in the schema, the step the server accepted: tools (a forced tool call), json_schema or json_object (response_format), text (plain text read tolerantly); null for the local extractor"),
    usage: usageSchema.extend({ estimated: z.boolean().describe("True when a server sent no usage and it was estimated from the text") }),
  })
  .meta({ id: "GraphBuildStatus" });

export const dryRunSchema = z
  .object({
    mode: z.enum(["incremental", "full"]),
    ...extractorFields,
    notes_total: count().describe("The user's notes"),
    notes_to_extract: count().describe("Notes the build would extract (outdated ones included)"),
    notes_outdated: count().describe("Unchanged notes whose saved extraction was made by an older extractor, model or prompt version"),
    notes_to_remove: count().describe("Deleted notes whose removal the build would report"),
    estimated_llm_calls: count(),
    estimated_input_tokens: count().describe("From the prompts the extractor would send: other text 4.5 characters per token, CJK characters one token each for Anthropic, 0.75 for OpenAI-compatible servers"),
    estimated_output_tokens: count().describe("A rough guess: about half the note text's tokens per call, plus 150"),
  })
  .meta({ id: "GraphBuildEstimate" });

export const buildResultSchema = z.union([buildStatusSchema, dryRunSchema]);

export const buildRecordSchema = z
  .object({
    id: z.number().int().positive(),
    mode: z.enum(["incremental", "full"]),
    status: z.enum(["building", "completed", "failed"]),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    notes_total: count(),
    notes_processed: count(),
    budget_exhausted: z.boolean(),
    ...extractorFields,
    usage: usageSchema,
    changes: z
      .object({ nodes_added: count(), nodes_removed: count(), edges_added: count(), edges_removed: count(), nodes_merged: count() })
      .describe("What the build changed in the graph, note deletions since the previous build included"),
    error: z.string().nullable(),
  })
  .meta({ id: "GraphBuildRecord" });

export const buildRecordDetailSchema = buildRecordSchema
  .extend({
    diff: z
      .object({
        added: z.array(z.object({ id: z.number().int().positive(), label: z.string() })),
        removed: z.array(z.object({ label: z.string() })),
        merged: z.array(z.object({ into: z.object({ id: z.number().int().positive(), label: z.string() }), labels: z.array(z.string()) })),
      })
      .describe("The concepts added, removed and merged (at most 200 entries each)"),
  })
  .meta({ id: "GraphBuildRecordDetail" });

export const listBuildsInput = z.object(pageQuery).prefault({});
export const buildPageSchema = pageEnvelope(buildRecordSchema, "GraphBuildPage");
export const buildIdInput = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export type BuildStatus = z.infer<typeof buildStatusSchema>;
export type BuildEstimate = z.infer<typeof dryRunSchema>;
export type BuildRecord = z.infer<typeof buildRecordSchema>;
export type BuildRecordDetail = z.infer<typeof buildRecordDetailSchema>;
export type BuildMode = "incremental" | "full";
export type BuildInput = z.infer<typeof buildInput>;
