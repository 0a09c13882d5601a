import fs from "node:fs";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { importTasks } from "../../db/schema";
import { log } from "../../log";
import type { ChangePublisher } from "../events/change";
import type { FileStorage } from "../files/blob-store";
import { ImportError } from "../imports/import-error";
import type { Downloader, Fetcher, ImportedDocument, MediaRef, PlatformImporter } from "../imports/platforms/types";
import { markTaskFailed, type PendingTranscription, saveNote } from "../imports/run-import";
import { SttRequestError, type SttClient } from "../llm/speech-to-text";
import { MAX_CONTENT_BYTES } from "../notes/schemas";
import { openAudio, planPieces, writePiece } from "./audio-pieces";
import { downloadMedia, mediaPaths, removeTaskMedia } from "./media-file";
import { mergePieces } from "./merge-pieces";
import { clockTime, renderTranscript } from "./render-transcript";
import { TranscriptError } from "./transcript-error";
import { countRequests, donePieces, findTranscript, keepTranscript, savePiece, type StoredTranscript } from "./transcript-store";

export interface SttLimits {
  maxSeconds: number;
  chunkSeconds: number;
  maxBytes: number;
  mediaDir: string;
}

export interface TranscriptionRun {
  db: Database;
  stt: SttClient;
  limits: SttLimits;
  /** The import's page fetcher (for a stream's address) and a media downloader with its own caps. */
  fetcher: Fetcher;
  downloadMedia: Downloader;
  importers: Partial<Record<string, PlatformImporter>>;
  signal: AbortSignal;
  attempt: number;
  maxAttempts: number;
  changes: ChangePublisher;
  files?: FileStorage;
}

/** Pieces overlap by this much, so a sentence cut at a boundary is heard whole once. */
export const OVERLAP_SECONDS = 5;

type Task = typeof importTasks.$inferSelect;

/**
 * The transcription job of an import task whose page is fetched: finds the transcript kept for the
 * media, or downloads the sound, cuts it into pieces and transcribes the ones not done yet (each
 * saved as it comes back, so a killed worker resumes), then saves the note with its `## Transcript`
 * and completes the task. A transcript that cannot be made leaves the note without it, saying why.
 */
export async function runTranscriptionTask(run: TranscriptionRun, payload: { taskId: number; userId: number }): Promise<void> {
  const [task] = await run.db.select().from(importTasks).where(and(eq(importTasks.id, payload.taskId), eq(importTasks.userId, payload.userId)));
  if (!task || task.transcription === null || task.status === "completed" || task.status === "failed") return;
  const pending = JSON.parse(task.transcription) as PendingTranscription;
  const media = pending.document.media!;
  const update = (fields: Partial<typeof importTasks.$inferInsert>) =>
    run.db
      .update(importTasks)
      .set({ ...fields, updatedAt: Date.now() })
      .where(eq(importTasks.id, task.id))
      .then(() => run.changes.publish({ userId: task.userId, kind: "task", id: task.id }));
  await update({ status: "running", startedAt: task.startedAt ?? Date.now(), progress: Math.max(task.progress, 62), message: "Looking for a transcript of this media" });
  const upload = "upload" in media.source ? media.source.upload : undefined;
  try {
    const transcript = (await findTranscript(run.db, media.key)) ?? (await transcribe(run, task, media, update));
    await finish(run, task, pending, { transcript });
    removeTaskMedia(run.limits.mediaDir, task.id, upload);
  } catch (error) {
    const lastAttempt = run.attempt >= run.maxAttempts;
    const permanent = (error instanceof TranscriptError || error instanceof ImportError) && error.permanent;
    const setup = error instanceof SttRequestError && (!error.transient || error.setup);
    if (run.signal.aborted && !lastAttempt) throw error;
    if (permanent || setup || lastAttempt) {
      const reason = error instanceof TranscriptError || error instanceof ImportError || error instanceof SttRequestError ? error.message : "the transcription failed unexpectedly";
      if (!(permanent || setup)) log.warn(`transcription of task ${task.id} failed for good`, error);
      await finish(run, task, pending, { failure: reason });
      removeTaskMedia(run.limits.mediaDir, task.id, upload);
      return;
    }
    const reason = error instanceof Error ? error.message : "an unexpected error";
    await update({ message: `Temporary problem while transcribing (attempt ${run.attempt} of ${run.maxAttempts}): ${reason}. Retrying shortly.` });
    throw error;
  }
}

/** The job's last attempt died with its worker: the note is saved without its transcript, saying so. */
export async function abandonTranscription(run: Pick<TranscriptionRun, "db" | "changes" | "files" | "limits">, taskId: number): Promise<void> {
  const [task] = await run.db.select().from(importTasks).where(eq(importTasks.id, taskId));
  if (!task || task.transcription === null || task.status === "completed" || task.status === "failed") return;
  const pending = JSON.parse(task.transcription) as PendingTranscription;
  await finish(run, task, pending, { failure: "the transcription was interrupted too many times" });
  const source = pending.document.media?.source;
  removeTaskMedia(run.limits.mediaDir, task.id, source && "upload" in source ? source.upload : undefined);
}

async function transcribe(run: TranscriptionRun, task: Task, media: MediaRef, update: (fields: Partial<typeof importTasks.$inferInsert>) => Promise<void>): Promise<StoredTranscript> {
  const { limits } = run;
  const files = mediaPaths(limits.mediaDir, task.id);
  let file: string;
  if ("upload" in media.source) {
    file = `${limits.mediaDir}/${media.source.upload}`;
    if (!fs.existsSync(file)) throw new TranscriptError("the uploaded recording is gone from the server; upload it again");
  } else {
    if (!fs.existsSync(files.media)) {
      await update({ progress: 64, message: "Downloading the video's sound" });
      const importer = run.importers[task.platform];
      const location =
        "bilibili" in media.source
          ? await importer!.locateMedia!(media.source, run.fetcher, run.signal)
          : { url: media.source.url, headers: { ...(media.source.referer ? { Referer: media.source.referer } : {}), ...(media.source.userAgent ? { "User-Agent": media.source.userAgent } : {}) } };
      await downloadMedia(run.downloadMedia, location, files, run.signal);
    }
    file = files.media;
  }

  const audio = await openAudio(file, { keepSeconds: limits.maxSeconds });
  try {
    const overlap = Math.min(OVERLAP_SECONDS, limits.chunkSeconds / 4);
    const plan = await planPieces(audio, { chunkSeconds: limits.chunkSeconds, maxBytes: limits.maxBytes, maxSeconds: limits.maxSeconds, overlapSeconds: overlap });
    const planKey = `${limits.chunkSeconds}/${limits.maxBytes}/${overlap}/${limits.maxSeconds}`;
    const done = await donePieces(run.db, media.key, planKey);
    const total = plan.pieces.length;
    for (const piece of plan.pieces) {
      if (done.has(piece.index)) continue;
      run.signal.throwIfAborted();
      await update({ progress: 65 + Math.floor((30 * done.size) / total), message: `Transcribing piece ${piece.index + 1} of ${total}` });
      const pieceFile = files.piece(piece.index);
      await writePiece(audio, piece, pieceFile);
      let answer;
      try {
        answer = await run.stt.transcribe({ file: pieceFile, name: `piece-${piece.index + 1}.m4a`, type: "audio/mp4", signal: run.signal, seconds: piece.end - piece.start });
      } catch (error) {
        if (error instanceof SttRequestError) await countRequests(run.db, task.id, error.requests);
        throw error;
      } finally {
        fs.rmSync(pieceFile, { force: true });
      }
      const result = {
        start: piece.start,
        end: piece.end,
        from: piece.from,
        // Each piece starts at 0 for the server: its times are moved onto the recording's clock.
        segments: answer.segments?.map((segment) => ({ start: segment.start + piece.start, end: segment.end + piece.start, text: segment.text })) ?? null,
        text: answer.text,
        language: answer.language ?? null,
      };
      await savePiece(run.db, { mediaKey: media.key, plan: planKey, index: piece.index, taskId: task.id }, result, { seconds: piece.end - piece.from, requests: answer.requests });
      done.set(piece.index, result);
    }
    const pieces = plan.pieces.map((piece) => done.get(piece.index)!);
    const timed = pieces.every((piece) => piece.segments !== null);
    const merged = mergePieces(pieces);
    const language = run.stt.settings.language ?? pieces.find((piece) => piece.language)?.language ?? "language detected";
    const transcript: StoredTranscript = {
      source: `speech-to-text (${run.stt.settings.model}, ${language}), machine-generated`,
      segments: timed ? merged : null,
      text: timed ? "" : merged.map((segment) => segment.text).join("\n\n"),
      duration: plan.duration,
      truncatedAt: plan.truncated ? limits.maxSeconds : null,
    };
    await keepTranscript(run.db, media.key, planKey, transcript, task.id);
    return transcript;
  } finally {
    audio.close();
  }
}

/** Saves the note (its document, then `## Transcript` or the line saying why there is none) and completes the task. */
async function finish(
  run: Pick<TranscriptionRun, "db" | "changes" | "files">,
  task: Task,
  pending: PendingTranscription,
  outcome: { transcript: StoredTranscript } | { failure: string },
): Promise<void> {
  const { document } = pending;
  const media = document.media!;
  const isUpload = "upload" in media.source;
  if ("failure" in outcome && isUpload) {
    // A recording's note is its transcript: without one there is nothing to keep.
    await markTaskFailed(run.db, task.id, `The recording could not be transcribed: ${outcome.failure}.`, run.changes, run.files);
    return;
  }
  let section: string;
  if ("failure" in outcome) {
    section = renderTranscript({ source: `_No transcript: ${outcome.failure}._`, segments: null });
  } else {
    const { transcript } = outcome;
    const notes = transcript.truncatedAt !== null ? [`_Transcribed up to ${clockTime(transcript.truncatedAt)} of ${clockTime(transcript.duration)}: the server transcribes at most ${Math.round(transcript.truncatedAt / 60)} minutes of a recording (STT_MAX_MINUTES)._`] : [];
    const videoUrl = media.videoUrl;
    const bvid = videoUrl ? /\/video\/(BV\w+)/.exec(videoUrl)?.[1] : undefined;
    section = renderTranscript({
      source: transcript.source,
      segments: transcript.segments,
      text: transcript.text,
      linkAt: bvid ? (seconds) => `https://www.bilibili.com/video/${bvid}?p=${media.part ?? 1}&t=${seconds}` : undefined,
      notes,
    });
  }
  const markdown = fitted(document.markdown, section);
  const full: ImportedDocument = { ...document, markdown };
  delete full.media;
  const { noteId, written } = await saveNote(run.db, task, full, pending.images, { failures: "failure" in outcome ? [{ name: "transcript", error: outcome.failure }] : [] });
  // As an import without a transcript ends (run-import.ts): the note's event, then the task's.
  if (written && noteId !== null) await run.changes.publish({ userId: task.userId, kind: "note", id: noteId, event: { type: `note.${written}` } });
  await run.changes.publish({ userId: task.userId, kind: "task", id: task.id, event: { type: "task.completed" } });
}

/** The body and its transcript, the transcript cut at a paragraph if the note would pass 1 MiB. */
function fitted(body: string, section: string): string {
  const join = (text: string) => (body.trim() ? `${body}\n\n${text}` : text);
  const room = MAX_CONTENT_BYTES - 8 * 1024;
  if (Buffer.byteLength(join(section), "utf8") <= room) return join(section);
  const blocks = section.split("\n\n");
  const cut = "_The transcript stops here: a note holds at most 1 MiB._";
  while (blocks.length > 2 && Buffer.byteLength(join([...blocks, cut].join("\n\n")), "utf8") > room) blocks.pop();
  return join([...blocks, cut].join("\n\n"));
}
