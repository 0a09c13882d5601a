import type { files } from "../../db/schema";
import type { FileRecord } from "./schemas";

export type FileRow = typeof files.$inferSelect;

/** Where a stored file is read; notes refer to it by this path. */
export function fileUrl(id: number): string {
  return `/api/files/${id}`;
}

export function toFileRecord(row: FileRow): FileRecord {
  return {
    id: row.id,
    url: fileUrl(row.id),
    mime: row.mime as FileRecord["mime"],
    size: row.size,
    sha256: row.sha256,
    created_at: new Date(row.createdAt).toISOString(),
  };
}
