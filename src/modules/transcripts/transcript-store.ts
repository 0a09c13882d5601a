import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { importTasks, transcriptPieces, transcripts } from "../../db/schema";
import type { SpeechSegment } from "../llm/speech-to-text";
import type { PieceTranscript } from "./merge-pieces";

export interface StoredTranscript {
  source: string;
  segments: SpeechSegment[] | null;
  text: string;
  duration: number;
  truncatedAt: number | null;
}

type Row = [number, number, string];
const pack = (segments: SpeechSegment[] | null) => (segments ? JSON.stringify(segments.map((segment): Row => [round(segment.start), round(segment.end), segment.text])) : null);
const unpack = (text: string | null) => (text === null ? null : (JSON.parse(text) as Row[]).map(([start, end, words]) => ({ start, end, text: words })));
const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export async function findTranscript(db: Database, mediaKey: string): Promise<StoredTranscript | null> {
  const [row] = await db.select().from(transcripts).where(eq(transcripts.mediaKey, mediaKey));
  return row ? { source: row.source, segments: unpack(row.segments), text: row.text, duration: row.duration, truncatedAt: row.truncatedAt } : null;
}

/**
 * Keeps a finished transcript for everyone who imports the same media, and drops its pieces; only
 * while the task that made it exists (a task deleted with its account meanwhile leaves nothing).
 */
export async function keepTranscript(db: Database, mediaKey: string, plan: string, transcript: StoredTranscript, taskId: number): Promise<void> {
  await db.batch([
    db.run(sql`insert into ${transcripts} (media_key, source, segments, text, duration, truncated_at, created_at)
      select ${mediaKey}, ${transcript.source}, ${pack(transcript.segments)}, ${transcript.text}, ${transcript.duration}, ${transcript.truncatedAt}, ${Date.now()}
      where exists (select 1 from ${importTasks} where id = ${taskId})
      on conflict do nothing`),
    db.delete(transcriptPieces).where(and(eq(transcriptPieces.mediaKey, mediaKey), eq(transcriptPieces.plan, plan))),
  ]);
}

export async function donePieces(db: Database, mediaKey: string, plan: string): Promise<Map<number, PieceTranscript & { language: string | null }>> {
  const rows = await db.select().from(transcriptPieces).where(and(eq(transcriptPieces.mediaKey, mediaKey), eq(transcriptPieces.plan, plan)));
  return new Map(rows.map((row) => [row.index, { start: row.start, end: row.end, from: row.from, segments: unpack(row.segments), text: row.text, language: row.language }]));
}

/**
 * Records a transcribed piece and what it cost the task, in one transaction: a worker killed after
 * this never sends the piece again, and a worker killed before it sends it once more. Nothing is
 * kept once the task is gone (deleted with its account).
 */
export async function savePiece(
  db: Database,
  key: { mediaKey: string; plan: string; index: number; taskId: number },
  piece: PieceTranscript & { language: string | null },
  usage: { seconds: number; requests: number },
): Promise<void> {
  await db.batch([
    db.run(sql`insert into ${transcriptPieces} (media_key, plan, idx, start, "end", from_seconds, segments, text, language, created_at)
      select ${key.mediaKey}, ${key.plan}, ${key.index}, ${piece.start}, ${piece.end}, ${piece.from}, ${pack(piece.segments)}, ${piece.text}, ${piece.language}, ${Date.now()}
      where exists (select 1 from ${importTasks} where id = ${key.taskId})
      on conflict do nothing`),
    db
      .update(importTasks)
      .set({ sttSeconds: sql`${importTasks.sttSeconds} + ${Math.round(usage.seconds)}`, sttRequests: sql`${importTasks.sttRequests} + ${usage.requests}` })
      .where(eq(importTasks.id, key.taskId)),
  ]);
}

/** Requests that failed still cost: they are counted on the task. */
export async function countRequests(db: Database, taskId: number, requests: number): Promise<void> {
  if (requests > 0) await db.update(importTasks).set({ sttRequests: sql`${importTasks.sttRequests} + ${requests}` }).where(eq(importTasks.id, taskId));
}
