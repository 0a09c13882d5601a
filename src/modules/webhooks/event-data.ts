import { and, eq, getTableColumns } from "drizzle-orm";
import type { Database } from "../../db/client";
import { importTasks, notes, trashedNotes } from "../../db/schema";
import type { ChangeEvent } from "../events/change";
import type { ExtractorSettings } from "../graph/create-extractor";
import { getBuildStatus } from "../graph/get-build-status";
import { toTaskRecord } from "../imports/task-record";
import { toNoteSource } from "../notes/note-record";

/**
 * The data of an event whose writer did not give it, read as streams read their events: the task
 * record, the build status, or the note (from the trash for a deletion). Null when the thing is
 * gone already (nothing to tell).
 */
export async function readEventData(
  db: Database,
  userId: number,
  event: ChangeEvent,
  subject: { kind: string; id?: number },
  graphSettings: ExtractorSettings,
): Promise<Record<string, unknown> | null> {
  if (event.data) return event.data;
  if (subject.kind === "graph") return { ...(await getBuildStatus({ ctx: { db, userId, graphSettings } })) };
  if (subject.id === undefined) return null;
  if (subject.kind === "task") {
    const { content: _content, ...columns } = getTableColumns(importTasks);
    const [row] = await db.select(columns).from(importTasks).where(and(eq(importTasks.id, subject.id), eq(importTasks.userId, userId)));
    return row ? { ...toTaskRecord({ ...row, content: null }) } : null;
  }
  const table = event.type === "note.deleted" ? trashedNotes : notes;
  const [row] = await db.select().from(table).where(and(eq(table.id, subject.id), eq(table.userId, userId)));
  if (!row) return null;
  return {
    id: row.id,
    title: row.title,
    tags: JSON.parse(row.tags) as string[],
    source: toNoteSource(row),
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
    ...("deletedAt" in row ? { deleted_at: new Date(row.deletedAt).toISOString() } : {}),
  };
}
