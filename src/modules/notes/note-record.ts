import type { notes } from "../../db/schema";
import type { NoteListItem, NoteRecord } from "./schemas";

type NoteRow = typeof notes.$inferSelect;

export function toNoteRecord(row: NoteRow): NoteRecord {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    tags: JSON.parse(row.tags) as string[],
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

export function toNoteListItem(row: Omit<NoteRow, "content" | "userId">): NoteListItem {
  return {
    id: row.id,
    title: row.title,
    tags: JSON.parse(row.tags) as string[],
    excerpt: row.excerpt,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}
