import type { importTasks } from "../../db/schema";
import type { TaskCounts, TaskFailure, TaskRecord } from "./schemas";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toTaskRecord(row: typeof importTasks.$inferSelect): TaskRecord {
  return {
    id: row.id,
    platform: row.platform as TaskRecord["platform"],
    url: row.url,
    status: row.status,
    progress: row.progress,
    message: row.message,
    error: row.error,
    note_id: row.noteId,
    counts: row.counts === null ? null : (JSON.parse(row.counts) as TaskCounts),
    failures: JSON.parse(row.failures) as TaskFailure[],
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    feed_id: row.feedId,
  };
}
