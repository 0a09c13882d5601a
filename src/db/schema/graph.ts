import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { notes } from "./notes";

/**
 * What the extractor said about one note, kept so that an incremental build re-extracts only
 * notes whose content hash changed, and an interrupted build resumes where it stopped. The graph
 * tables below are recomputed from these rows at the end of every build.
 */
export const graphNoteExtractions = sqliteTable(
  "graph_note_extractions",
  {
    noteId: integer("note_id")
      .primaryKey()
      .references(() => notes.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull(),
    /** SHA-256 of the note's title, content and tags at extraction. */
    contentHash: text("content_hash").notNull(),
    /** The build that extracted it; a resumed full build keeps only its own rows. */
    buildId: integer("build_id").notNull(),
    status: text("status", { enum: ["ok", "failed"] }).notNull(),
    error: text("error"),
    /** JSON: `{concepts: [...], relations: [...]}` with spans and their passages. */
    result: text("result").notNull(),
    extractedAt: integer("extracted_at").notNull(),
    /** What made it: a newer extractor, model or prompt version makes an incremental build redo it. */
    extractor: text("extractor").notNull().default(""),
    model: text("model").notNull().default(""),
    promptVersion: integer("prompt_version").notNull().default(0),
    /** The result the stored graph reflects (null: none yet); an incremental build takes it out before adding `result`. */
    appliedResult: text("applied_result"),
    /** False from extraction until a build has applied `result` to the graph. */
    applied: integer("applied", { mode: "boolean" }).notNull().default(false),
  },
  (table) => [
    index("graph_note_extractions_user_idx").on(table.userId),
    index("graph_note_extractions_pending_idx").on(table.userId).where(sql`${table.applied} = 0`),
  ],
);

/** One node per concept per user; `key` is the normalised name (NFKC, case-folded, trimmed). */
export const graphNodes = sqliteTable(
  "graph_nodes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    label: text("label").notNull(),
    type: text("type").notNull(),
    description: text("description").notNull(),
    /** Number of mentions across the user's notes. */
    weight: integer("weight").notNull(),
    degree: integer("degree").notNull(),
    community: integer("community").notNull(),
    /** JSON array of the notes that mention it, ascending. */
    noteIds: text("note_ids").notNull(),
    /** JSON array of the other names merged into this node. */
    aliases: text("aliases").notNull().default("[]"),
    /**
     * JSON `{l: {label: [weight, names]}, t: {type: weight}, d: {description: count}}` over the notes
     * that mention it: what its label, aliases, type and description are chosen from, kept so that an
     * incremental build can add and take off one note's share without reading the others.
     */
    stats: text("stats"),
    /** Hidden by the user's curation: left out of reads unless asked for. */
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
  },
  (table) => [
    uniqueIndex("graph_nodes_user_key_idx").on(table.userId, table.key),
    // `hidden` rides along so the visible heaviest are found in the index alone: in the row it comes
    // after the long `note_ids` and `stats`, which SQLite would walk (overflow pages too) to reach it.
    index("graph_nodes_user_weight_idx").on(table.userId, sql`${table.weight} desc`, table.id, table.hidden),
  ],
);

/** Every concept key a node stands for (its own and its aliases'), so a build finds the nodes a changed note touches. */
export const graphNodeKeys = sqliteTable(
  "graph_node_keys",
  {
    userId: integer("user_id").notNull(),
    key: text("key").notNull(),
    nodeId: integer("node_id")
      .notNull()
      .references(() => graphNodes.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.userId, table.key] }), index("graph_node_keys_node_idx").on(table.nodeId)],
);

/**
 * A deleted note's part in the graph, kept until the next build reports it: the keys of the nodes
 * it touched (their labels and aliases are recomputed then) and what its deletion removed.
 */
export const graphNoteRemovals = sqliteTable(
  "graph_note_removals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    noteId: integer("note_id").notNull(),
    /** JSON array of concept keys. */
    keys: text("keys").notNull(),
    /** JSON array of the labels of the nodes that disappeared with it. */
    removedLabels: text("removed_labels").notNull(),
    edgesRemoved: integer("edges_removed").notNull(),
    removedAt: integer("removed_at").notNull(),
  },
  (table) => [index("graph_note_removals_user_idx").on(table.userId)],
);

/** The user's corrections, on concept keys so that every later build (full ones too) applies them. */
export const graphConceptRules = sqliteTable(
  "graph_concept_rules",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    label: text("label"),
    type: text("type"),
    description: text("description"),
    hidden: integer("hidden", { mode: "boolean" }),
    /** The key of the concept this one was merged into. */
    mergeInto: text("merge_into"),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.key] })],
);

export const graphEdges = sqliteTable(
  "graph_edges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sourceId: integer("source_id")
      .notNull()
      .references(() => graphNodes.id, { onDelete: "cascade" }),
    targetId: integer("target_id")
      .notNull()
      .references(() => graphNodes.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    /** Number of notes (and passages) that state the relation. */
    weight: integer("weight").notNull(),
    noteIds: text("note_ids").notNull(),
  },
  (table) => [
    uniqueIndex("graph_edges_user_pair_idx").on(table.userId, table.sourceId, table.targetId, table.label),
    index("graph_edges_source_idx").on(table.sourceId),
    index("graph_edges_target_idx").on(table.targetId),
  ],
);

/** Provenance: where in which note a node is mentioned, with the passage as it read then. */
export const graphMentions = sqliteTable(
  "graph_mentions",
  {
    nodeId: integer("node_id")
      .notNull()
      .references(() => graphNodes.id, { onDelete: "cascade" }),
    noteId: integer("note_id")
      .notNull()
      .references(() => notes.id, { onDelete: "cascade" }),
    start: integer("start").notNull(),
    end: integer("end").notNull(),
    passage: text("passage").notNull(),
  },
  (table) => [primaryKey({ columns: [table.nodeId, table.noteId, table.start] }), index("graph_mentions_note_idx").on(table.noteId)],
);

export const graphBuilds = sqliteTable(
  "graph_builds",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["full", "incremental"] }).notNull(),
    status: text("status", { enum: ["building", "completed", "failed"] }).notNull(),
    progress: integer("progress").notNull().default(0),
    message: text("message").notNull(),
    error: text("error"),
    notesTotal: integer("notes_total").notNull().default(0),
    notesProcessed: integer("notes_processed").notNull().default(0),
    /** JSON array of `{note_id, error}` for notes whose extraction failed; the build went on. */
    failedNotes: text("failed_notes").notNull().default("[]"),
    llmCalls: integer("llm_calls").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    startedAt: integer("started_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
    extractor: text("extractor").notNull().default("local"),
    model: text("model"),
    structuredOutput: text("structured_output"),
    usageEstimated: integer("usage_estimated", { mode: "boolean" }).notNull().default(false),
    maxLlmCalls: integer("max_llm_calls"),
    maxInputTokens: integer("max_input_tokens"),
    budgetExhausted: integer("budget_exhausted", { mode: "boolean" }).notNull().default(false),
    nodesAdded: integer("nodes_added").notNull().default(0),
    nodesRemoved: integer("nodes_removed").notNull().default(0),
    edgesAdded: integer("edges_added").notNull().default(0),
    edgesRemoved: integer("edges_removed").notNull().default(0),
    nodesMerged: integer("nodes_merged").notNull().default(0),
    /** JSON `{added: [{id, label}], removed: [{label}], merged: [{into: {id, label}, labels}]}`, at most 200 each. */
    diff: text("diff").notNull().default('{"added":[],"removed":[],"merged":[]}'),
  },
  (table) => [
    index("graph_builds_user_idx").on(table.userId, sql`${table.id} desc`),
    // At most one running build per user: a second POST /build cannot slip in between check and insert.
    uniqueIndex("graph_builds_one_running_idx").on(table.userId).where(sql`${table.status} = 'building'`),
  ],
);
