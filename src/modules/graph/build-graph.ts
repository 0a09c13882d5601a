import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import pLimit from "p-limit";
import { graphBuilds, graphNodeKeys, graphNodes, graphNoteExtractions } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangeEvent, ChangePublisher } from "../events/change";
import { isConstraintViolation } from "../../db/errors";
import { log } from "../../log";
import { conceptKey } from "./concept-key";
import { applyGraphChanges } from "./apply-graph-changes";
import { createCallBudget } from "./call-budget";
import { createBuildExtractor, extractorIdentity, type ExtractorSettings } from "./create-extractor";
import { BudgetExhaustedError, noteText, type ExtractionUsage } from "./extraction";
import { addUsage } from "../llm/usage";
import { boundedDiff, type GraphChanges } from "./graph-changes";
import { refreshCommunities } from "./refresh-communities";
import { ExtractionFailedError, LlmRequestError } from "./extractors/llm/errors";
import { failBuild } from "./fail-build";
import { materializeGraph, needsWholeGraph } from "./materialize-graph";
import { notesToExtract } from "./notes-to-extract";
import { toStoredExtraction } from "./stored-extraction";

export interface GraphBuildRun {
  db: Database;
  settings: ExtractorSettings;
  signal: AbortSignal;
  attempt: number;
  maxAttempts: number;
  changes: ChangePublisher;
}

/** Extraction is 0–90 % of a build; writing the graph the rest. */
const EXTRACTION_SHARE = 90;
const PROGRESS_WRITE_MS = 250;
const EXISTING_CONCEPTS = 200;

class BuildFailure extends Error {}

/**
 * The graph build job of one user. Each note's extraction is saved as soon as it is done, keyed by
 * a hash of the note, so a build interrupted with its worker resumes where it stopped when the job
 * runs again, and an incremental build re-extracts only new, changed or outdated notes. At the end
 * an incremental build applies the difference of those notes to the stored graph (applyGraphChanges);
 * a full one recomputes it from all saved extractions (materializeGraph); either swaps it in with
 * one transaction. A budget stops new calls; the notes left wait for the next incremental build.
 */
export async function runGraphBuild(run: GraphBuildRun, payload: { buildId: number; userId: number }): Promise<void> {
  const { db } = run;
  const [build] = await db
    .select()
    .from(graphBuilds)
    .where(and(eq(graphBuilds.id, payload.buildId), eq(graphBuilds.userId, payload.userId)));
  if (!build || build.status !== "building") return;
  const update = (fields: SQLiteUpdateSetSource<typeof graphBuilds>, event?: ChangeEvent) =>
    db.update(graphBuilds).set({ ...fields, updatedAt: Date.now() }).where(and(eq(graphBuilds.id, build.id), eq(graphBuilds.status, "building")))
      .then(() => run.changes.publish({ userId: build.userId, kind: "graph", ...(event && { event }) }));

  try {
    const identity = extractorIdentity(run.settings);
    await update({
      message: "Reading notes",
      progress: Math.max(build.progress, 1),
      extractor: identity.extractor,
      model: identity.model,
      structuredOutput: identity.structuredOutput,
    });
    const { all, todo } = await notesToExtract(db, build, identity);
    const total = build.mode === "full" ? all.length : Math.max(build.notesTotal, todo.length);
    let processed = Math.max(0, total - todo.length);
    await update({ notesTotal: total, notesProcessed: processed });

    const failedNotes: { note_id: number; error: string }[] = JSON.parse(build.failedNotes);
    const budget = createCallBudget({
      maxCalls: build.maxLlmCalls ?? run.settings.maxLlmCalls ?? null,
      maxInputTokens: build.maxInputTokens,
      used: { calls: build.llmCalls, inputTokens: build.inputTokens },
    });
    const waiting: number[] = [];
    if (todo.length > 0) {
      const extractor = await createBuildExtractor(run.settings, all.map(({ note }) => note));
      // One list for the whole build, the heaviest concepts first and this build's new names after
      // them: a new name never pushes an old one out, and the local extractor's cache keeps hitting.
      const existingConcepts = (
        await db
          .select({ label: graphNodes.label })
          .from(graphNodes)
          .where(eq(graphNodes.userId, build.userId))
          .orderBy(desc(graphNodes.weight), asc(graphNodes.id))
          .limit(EXISTING_CONCEPTS)
      ).map((node) => node.label);
      const known = new Set(existingConcepts.map(conceptKey));
      const pending: ExtractionUsage = { llm_calls: 0, input_tokens: 0, output_tokens: 0 };
      let lastWrite = 0;
      const report = async (force = false) => {
        if (!force && Date.now() - lastWrite < PROGRESS_WRITE_MS) return;
        lastWrite = Date.now();
        const usage = { ...pending };
        pending.llm_calls = pending.input_tokens = pending.output_tokens = 0;
        pending.estimated = false;
        await update({
          notesProcessed: processed,
          progress: Math.max(1, Math.floor((processed / Math.max(total, 1)) * EXTRACTION_SHARE)),
          message: `Extracting concepts: ${processed} of ${total} notes`,
          failedNotes: JSON.stringify(failedNotes),
          llmCalls: sql`${graphBuilds.llmCalls} + ${usage.llm_calls}`,
          inputTokens: sql`${graphBuilds.inputTokens} + ${usage.input_tokens}`,
          outputTokens: sql`${graphBuilds.outputTokens} + ${usage.output_tokens}`,
          ...(usage.estimated ? { usageEstimated: true } : {}),
          // The step an OpenAI-compatible server accepted, once it is known.
          ...(extractor.structuredOutput ? { structuredOutput: extractor.structuredOutput() } : {}),
        });
      };

      const extractOne = async ({ note, hash }: (typeof all)[number]) => {
        let status: "ok" | "failed" = "ok";
        let error: string | null = null;
        let result = '{"concepts":[],"relations":[]}';
        try {
          const extraction = await extractor.extract(note, { existingConcepts, signal: run.signal, budget });
          addUsage(pending, extraction.usage);
          for (const { name } of extraction.concepts) {
            const key = conceptKey(name);
            if (!key || known.has(key)) continue;
            known.add(key);
            existingConcepts.push(name);
          }
          result = JSON.stringify(toStoredExtraction(extraction, noteText(note)));
        } catch (caught) {
          if (run.signal.aborted) throw caught;
          if (caught instanceof BudgetExhaustedError) {
            // Not saved: the next incremental build extracts it.
            addUsage(pending, caught.usage);
            waiting.push(note.id);
            return;
          }
          if (caught instanceof LlmRequestError && caught.stopsBuild) throw new BuildFailure(caught.message);
          if (!(caught instanceof ExtractionFailedError || caught instanceof LlmRequestError)) throw caught;
          addUsage(pending, caught.usage);
          status = "failed";
          error = caught.message;
          failedNotes.push({ note_id: note.id, error });
        }
        await saveExtraction(db, {
          noteId: note.id,
          userId: build.userId,
          contentHash: hash,
          buildId: build.id,
          status,
          error,
          result,
          extractor: identity.extractor,
          model: identity.model ?? "",
          promptVersion: identity.promptVersion,
          applied: false,
        });
        processed++;
        await report();
      };
      // Notes in flight, hence LLM calls in flight (each note's calls are sequential); the local extractor is CPU-bound.
      const limit = pLimit(run.settings.extractor === "local" ? 1 : run.settings.llmConcurrency);
      let stopped = false;
      await limit.map(todo, async (item) => {
        // After a failure that ends the build, the notes not started yet are not sent.
        if (stopped) return;
        if (budget.exhausted()) {
          waiting.push(item.note.id);
          return;
        }
        try {
          await extractOne(item);
        } catch (error) {
          stopped = true;
          throw error;
        }
      });
      await report(true);
    }

    if (build.mode === "full" && waiting.length > 0) {
      // Their previous extraction stays in the graph; a hash that matches no note makes the next incremental build redo them.
      await db.update(graphNoteExtractions).set({ contentHash: "" }).where(sql`${graphNoteExtractions.noteId} in (select value from json_each(${JSON.stringify(waiting)}))`);
    }
    await update({ progress: EXTRACTION_SHARE, message: "Writing the graph" });
    const whole = build.mode === "full" || (await needsWholeGraph(db, build.userId));
    const changes = whole ? (await materializeGraph(db, build.userId)).changes : await applyGraphChanges(db, build.userId);
    const graph = await graphSize(db, build.userId);
    const failures = failedNotes.length ? `; ${failedNotes.length} note(s) could not be extracted` : "";
    const budgetNote = waiting.length > 0 ? `; the budget was reached: ${waiting.length} note(s) still wait for the next incremental build` : "";
    await update({
      status: "completed",
      progress: 100,
      notesProcessed: total - waiting.length,
      message: `Built ${graph.nodes} nodes and ${graph.edges} edges from ${all.length} notes${failures}${budgetNote}`,
      finishedAt: Date.now(),
      budgetExhausted: waiting.length > 0,
      ...changeColumns(changes),
    }, { type: "graph.build.completed" });
    // Communities follow the swap; readers meanwhile see the previous ones (new nodes in community 0).
    if (!whole && changed(changes)) {
      await refreshCommunities(db, build.userId).catch((error: unknown) => log.warn(`graph build ${build.id}: communities not refreshed`, error));
    }
  } catch (error) {
    if (error instanceof BuildFailure) {
      await failBuild(db, build.id, error.message, run.changes);
      return;
    }
    if (run.signal.aborted) throw error;
    log.error(`graph build ${build.id} failed`, error);
    if (run.attempt >= run.maxAttempts) {
      await failBuild(db, build.id, "The build failed unexpectedly; try again", run.changes);
      return;
    }
    await update({ message: `Retrying after a problem (attempt ${run.attempt} of ${run.maxAttempts})` });
    throw error;
  }
}

async function graphSize(db: Database, userId: number): Promise<{ nodes: number; edges: number }> {
  const [row] = await db.all<{ nodes: number; edges: number }>(sql`
    select (select count(*) from graph_nodes where user_id = ${userId}) as nodes, (select count(*) from graph_edges where user_id = ${userId}) as edges`);
  return { nodes: Number(row?.nodes ?? 0), edges: Number(row?.edges ?? 0) };
}

function changeColumns(changes: GraphChanges) {
  return {
    nodesAdded: changes.nodesAdded,
    nodesRemoved: changes.nodesRemoved,
    edgesAdded: changes.edgesAdded,
    edgesRemoved: changes.edgesRemoved,
    nodesMerged: changes.nodesMerged,
    diff: JSON.stringify(boundedDiff(changes.diff)),
  };
}

function changed(changes: GraphChanges): boolean {
  return changes.nodesAdded + changes.nodesRemoved + changes.edgesAdded + changes.edgesRemoved + changes.nodesMerged > 0;
}

async function saveExtraction(db: Database, row: Omit<typeof graphNoteExtractions.$inferInsert, "extractedAt">): Promise<void> {
  const values = { ...row, extractedAt: Date.now() };
  try {
    await db.insert(graphNoteExtractions).values(values).onConflictDoUpdate({ target: graphNoteExtractions.noteId, set: values });
  } catch (error) {
    // The note was deleted while it was being extracted: there is nothing to keep.
    if (!isConstraintViolation(error)) throw error;
  }
}

