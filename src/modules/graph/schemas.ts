import { z } from "zod";

export const buildInput = z
  .object({
    mode: z
      .enum(["incremental", "full"])
      .default("incremental")
      .describe("incremental: only new or changed notes (and what deleted notes contributed); full: drop the graph and re-extract every note"),
  })
  .prefault({});

export const buildStatusSchema = z
  .object({
    status: z.enum(["idle", "building", "completed", "failed"]).describe("idle: never built"),
    progress: z.number().int().min(0).max(100),
    message: z.string(),
    mode: z.enum(["incremental", "full"]).nullable(),
    build_id: z.number().int().positive().nullable(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    notes_total: z.number().int().min(0).describe("Notes this build extracts from"),
    notes_processed: z.number().int().min(0),
    nodes: z.number().int().min(0).describe("Nodes in the current graph"),
    edges: z.number().int().min(0).describe("Edges in the current graph"),
    error: z.string().nullable(),
    failed_notes: z
      .array(z.object({ note_id: z.number().int(), error: z.string() }))
      .describe("Notes whose extraction failed in this build; the build went on without them"),
    usage: z.object({ llm_calls: z.number().int().min(0), input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) }),
  })
  .meta({ id: "GraphBuildStatus" });

export type BuildStatus = z.infer<typeof buildStatusSchema>;
export type BuildMode = "incremental" | "full";
