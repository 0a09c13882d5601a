import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import pLimit from "p-limit";
import { graphBuilds, graphNodes, graphNoteExtractions, notes } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { isConstraintViolation } from "../../db/errors";
import { log } from "../../log";
import { conceptKey } from "./concept-key";
import { createBuildExtractor, type ExtractorSettings } from "./create-extractor";
import { noteText, type ExtractionUsage, type NoteForExtraction } from "./extraction";
import { AnthropicRequestError, ExtractionFailedError } from "./extractors/anthropic/errors";
import { failBuild } from "./fail-build";
import { materializeGraph } from "./materialize-graph";
import { noteContentHash } from "./note-hash";
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
 * runs again, and an incremental build re-extracts only new or changed notes. The graph itself is
 * recomputed from all saved extractions and swapped in at the end.
 */
export async function runGraphBuild(run: GraphBuildRun, payload: { buildId: number; userId: number }): Promise<void> {
  const { db } = run;
  const [build] = await db
    .select()
    .from(graphBuilds)
    .where(and(eq(graphBuilds.id, payload.buildId), eq(graphBuilds.userId, payload.userId)));
  if (!build || build.status !== "building") return;
  const update = (fields: SQLiteUpdateSetSource<typeof graphBuilds>) =>
    db.update(graphBuilds).set({ ...fields, updatedAt: Date.now() }).where(and(eq(graphBuilds.id, build.id), eq(graphBuilds.status, "building")))
      .then(() => run.changes.publish({ userId: build.userId, kind: "graph" }));

  try {
    await update({ message: "Reading notes", progress: Math.max(build.progress, 1) });
    const all = await loadNotes(db, build.userId);
    const saved = new Map(
      (
        await db
          .select({ noteId: graphNoteExtractions.noteId, hash: graphNoteExtractions.contentHash, buildId: graphNoteExtractions.buildId, status: graphNoteExtractions.status })
          .from(graphNoteExtractions)
          .where(eq(graphNoteExtractions.userId, build.userId))
      ).map((row) => [row.noteId, row]),
    );
    const todo = all.filter(({ note, hash }) => {
      const previous = saved.get(note.id);
      if (!previous) return true;
      // A full build re-extracts everything, except what this very build already did before an interruption.
      if (build.mode === "full") return previous.buildId !== build.id;
      return previous.hash !== hash || previous.status !== "ok";
    });
    const total = build.mode === "full" ? all.length : Math.max(build.notesTotal, todo.length);
    let processed = Math.max(0, total - todo.length);
    await update({ notesTotal: total, notesProcessed: processed });

    const failedNotes: { note_id: number; error: string }[] = JSON.parse(build.failedNotes);
    if (todo.length > 0) {
      const extractor = createBuildExtractor(run.settings, all.map(({ note }) => note));
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
        await update({
          notesProcessed: processed,
          progress: Math.max(1, Math.floor((processed / Math.max(total, 1)) * EXTRACTION_SHARE)),
          message: `Extracting concepts: ${processed} of ${total} notes`,
          failedNotes: JSON.stringify(failedNotes),
          llmCalls: sql`${graphBuilds.llmCalls} + ${usage.llm_calls}`,
          inputTokens: sql`${graphBuilds.inputTokens} + ${usage.input_tokens}`,
          outputTokens: sql`${graphBuilds.outputTokens} + ${usage.output_tokens}`,
        });
      };

      const extractOne = async ({ note, hash }: (typeof all)[number]) => {
        let status: "ok" | "failed" = "ok";
        let error: string | null = null;
        let result = '{"concepts":[],"relations":[]}';
        try {
          const extraction = await extractor.extract(note, { existingConcepts, signal: run.signal });
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
          if (caught instanceof AnthropicRequestError && caught.stopsBuild) throw new BuildFailure(caught.message);
          if (!(caught instanceof ExtractionFailedError || caught instanceof AnthropicRequestError)) throw caught;
          addUsage(pending, caught.usage);
          status = "failed";
          error = caught.message;
          failedNotes.push({ note_id: note.id, error });
        }
        await saveExtraction(db, { noteId: note.id, userId: build.userId, contentHash: hash, buildId: build.id, status, error, result });
        processed++;
        await report();
      };
      // Notes in flight, hence LLM calls in flight (each note's calls are sequential); the local extractor is CPU-bound.
      const limit = pLimit(run.settings.extractor === "anthropic" ? run.settings.llmConcurrency : 1);
      let stopped = false;
      await limit.map(todo, async (item) => {
        // After a failure that ends the build, the notes not started yet are not sent.
        if (stopped) return;
        try {
          await extractOne(item);
        } catch (error) {
          stopped = true;
          throw error;
        }
      });
      await report(true);
    }

    await update({ progress: EXTRACTION_SHARE, message: "Writing the graph" });
    const graph = await materializeGraph(db, build.userId);
    const failures = failedNotes.length ? `; ${failedNotes.length} note(s) could not be extracted` : "";
    await update({
      status: "completed",
      progress: 100,
      notesProcessed: total,
      message: `Built ${graph.nodes} nodes and ${graph.edges} edges from ${all.length} notes${failures}`,
      finishedAt: Date.now(),
    });
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

async function loadNotes(db: Database, userId: number): Promise<{ note: NoteForExtraction; hash: string }[]> {
  const rows = await db
    .select({ id: notes.id, title: notes.title, content: notes.content, tags: notes.tags })
    .from(notes)
    .where(eq(notes.userId, userId))
    .orderBy(notes.id);
  return rows.map((row) => ({
    note: { id: row.id, title: row.title, content: row.content, tags: JSON.parse(row.tags) as string[] },
    hash: noteContentHash(row),
  }));
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

function addUsage(total: ExtractionUsage, usage: ExtractionUsage): void {
  total.llm_calls += usage.llm_calls;
  total.input_tokens += usage.input_tokens;
  total.output_tokens += usage.output_tokens;
}
