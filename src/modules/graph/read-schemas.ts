import { z } from "zod";
import { compiledSchema } from "../compiled-schema";

export const MAX_GRAPH_LIMIT = 5000;
export const DEFAULT_GRAPH_LIMIT = 500;
export const MAX_GRAPH_DEPTH = 3;

// Fresh instances per field: the REST adapter flips `coerce` on query schemas in place.
const id = () => z.number().int().positive();
const noteIds = () => z.array(id()).describe("The notes it comes from, ascending");

export const graphNodeIdSchema = z.coerce
  .number({ error: "Must be a positive integer id" })
  .int("Must be a positive integer id")
  .positive("Must be a positive integer id")
  .max(Number.MAX_SAFE_INTEGER)
  .describe("A node id, as in `nodes[].id`");

export const graphNodeSchema = z
  .object({
    id: id(),
    label: z.string().describe("The concept's name as first written"),
    type: z.string().describe('A short category, e.g. "person", "technology", "idea", "place", "organization", "topic"'),
    description: z.string().describe("One sentence about the concept"),
    weight: z.number().int().min(0).describe("How many times the user's notes mention it"),
    degree: z.number().int().min(0).describe("How many distinct concepts it is related to, in the whole graph"),
    community: z
      .number()
      .int()
      .min(0)
      .describe("Its Louvain community in the whole graph; 0 is the largest. Useful for colouring"),
    note_ids: noteIds(),
    aliases: z
      .array(z.string())
      .describe("Other names it goes by: the variants the extractor merged, the labels merged into it by curation, and a renamed node's old label"),
  })
  .meta({ id: "GraphNode" });

export const graphEdgeSchema = z
  .object({
    id: id(),
    source: id().describe("The id of the node it starts from"),
    target: id().describe("The id of the node it points to"),
    label: z.string().describe('The relation, e.g. "uses", "part of"'),
    weight: z.number().int().min(0).describe("How many notes state it"),
    note_ids: noteIds(),
  })
  .meta({ id: "GraphEdge" });

const count = () => z.number().int().min(0);

// Compiled: `limit=5000` answers 25,000 objects, which the interpreter took ~25–35 ms to check.
export const graphSchema = compiledSchema(
  z.object({
    nodes: z.array(graphNodeSchema).describe("Nearest first when a node was asked for, otherwise heaviest first"),
    edges: z.array(graphEdgeSchema).describe("Only edges whose two ends are among `nodes`"),
    stats: z.object({
      nodes: count().describe("Nodes returned"),
      edges: count().describe("Edges returned"),
      total_nodes: count().describe("Nodes in the user's whole graph"),
      total_edges: count().describe("Edges in the user's whole graph"),
      communities: count().describe("Distinct communities among the returned nodes"),
    }),
  }),
  { id: "KnowledgeGraph" },
);

export const graphNodeNoteSchema = z
  .object({
    id: id(),
    title: z.string(),
    excerpt: z.string().describe("The note's first passage that mentions the node, up to 300 characters"),
  })
  .meta({ id: "GraphNodeNote" });

export const graphNodeDetailSchema = z
  .object({
    node: graphNodeSchema,
    neighbours: z.array(graphNodeSchema).describe("Nodes one edge away (either direction), heaviest first"),
    edges: z.array(graphEdgeSchema).describe("The edges between the node and its neighbours, heaviest first"),
    notes: z
      .array(graphNodeNoteSchema)
      .describe("The user's notes that mention the node: most mentions first, then most recently updated"),
  })
  .meta({ id: "GraphNodeDetail" });

export const getGraphInput = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_GRAPH_LIMIT)
      .default(DEFAULT_GRAPH_LIMIT)
      .describe(`At most this many nodes (1..${MAX_GRAPH_LIMIT}): the heaviest, or the nearest to \`node\``),
    node: id().describe("Return this node's neighbourhood instead of the heaviest nodes").optional(),
    depth: z
      .number()
      .int()
      .min(1)
      .max(MAX_GRAPH_DEPTH)
      .default(1)
      .describe(`With \`node\`: how many hops (1..${MAX_GRAPH_DEPTH}) the neighbourhood reaches, edges followed either way`),
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("Without `node`: only the concepts whose label or an alias contains this (NFKC, case-insensitive), heaviest first"),
    include_hidden: queryBoolean().describe("Include the nodes hidden by curation, and their edges"),
  })
  .prefault({});

/** A boolean that also reads "true"/"false" from a query string (plain coercion would take "false" as true). */
function queryBoolean() {
  return z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean()).default(false);
}

export const graphNodeIdInput = z.object({ id: graphNodeIdSchema });

export const updateNodeInput = z
  .object({
    id: graphNodeIdSchema,
    label: z.string().trim().min(1).max(100).optional().describe("A new name; the old one stays as an alias"),
    type: z.string().trim().min(1).max(60).optional(),
    description: z.string().trim().max(500).optional(),
    hidden: z.boolean().optional().describe("Leave the node (and its edges) out of graph reads"),
  })
  .refine((input) => input.label !== undefined || input.type !== undefined || input.description !== undefined || input.hidden !== undefined, {
    message: "Give at least one of label, type, description, hidden",
  });

export const mergeNodesInput = z.object({
  id: graphNodeIdSchema,
  ids: z.array(id()).min(1).max(100).describe("The nodes to merge into this one; they disappear"),
});

export const mergedNodeSchema = z.object({ id: id() }).meta({ id: "GraphMergedNode" });

export type GraphNode = z.infer<typeof graphNodeSchema>;
export type GraphEdge = z.infer<typeof graphEdgeSchema>;
export type KnowledgeGraph = z.infer<typeof graphSchema>;
export type GraphNodeDetail = z.infer<typeof graphNodeDetailSchema>;
export type GraphNodeNote = z.infer<typeof graphNodeNoteSchema>;
export type GetGraphInput = z.infer<typeof getGraphInput>;
