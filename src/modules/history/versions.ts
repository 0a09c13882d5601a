import { and, desc, eq, gte, sql } from "drizzle-orm";
import { structuredPatch } from "diff";
import type { Database } from "../../db/client";
import { notes, noteVersions } from "../../db/schema";
import { NotFoundError } from "../errors";
import { pageOf, type Page } from "../pagination";
import type { VersionDiff, VersionItem } from "./schemas";
import { applyDeltas, type TextDelta } from "./text-delta";
import { updateNote } from "../notes/update-note";
import type { NoteRecord } from "../notes/schemas";
import type { Credential } from "../tokens/credential";
import { restoreWriter } from "./writer";

type Ctx = { db: Database; userId: number };
type VersionRow = typeof noteVersions.$inferSelect;

/** The note's current content, or a 404: versions are the history of a note of this user that is not in the trash. */
async function currentContent(ctx: Ctx, noteId: number): Promise<string> {
  const [note] = await ctx.db.select({ content: notes.content }).from(notes).where(and(eq(notes.id, noteId), eq(notes.userId, ctx.userId)));
  if (!note) throw new NotFoundError(`Note ${noteId}`);
  return note.content;
}

const toItem = (row: VersionRow): VersionItem => ({
  version: row.version,
  title: row.title,
  tags: JSON.parse(row.tags) as string[],
  size: row.size,
  created_at: new Date(row.createdAt).toISOString(),
  replaced_at: new Date(row.replacedAt).toISOString(),
  by: { kind: row.byKind as VersionItem["by"]["kind"], name: row.byName },
});

export async function listVersions({ ctx, input }: { ctx: Ctx; input: { id: number; page: number; size: number } }): Promise<Page<VersionItem>> {
  await currentContent(ctx, input.id);
  const mine = and(eq(noteVersions.noteId, input.id), eq(noteVersions.userId, ctx.userId));
  const [rows, [count]] = await Promise.all([
    ctx.db.select().from(noteVersions).where(mine).orderBy(desc(noteVersions.version)).limit(input.size).offset((input.page - 1) * input.size),
    ctx.db.select({ total: sql<number>`count(*)` }).from(noteVersions).where(mine),
  ]);
  return pageOf(rows.map(toItem), count!.total, input);
}

/** A version with its content: the current text with the deltas of every version from the newest down to it applied. */
export async function getVersion({ ctx, input }: { ctx: Ctx; input: { id: number; version: number } }) {
  const { row, content } = await versionText(ctx, input.id, input.version);
  return { ...toItem(row), content };
}

export async function versionText(ctx: Ctx, noteId: number, version: number): Promise<{ row: VersionRow; content: string; current: string }> {
  const current = await currentContent(ctx, noteId);
  const chain = await ctx.db
    .select()
    .from(noteVersions)
    .where(and(eq(noteVersions.noteId, noteId), eq(noteVersions.userId, ctx.userId), gte(noteVersions.version, version)))
    .orderBy(desc(noteVersions.version));
  const row = chain.at(-1);
  if (!row || row.version !== version) throw new NotFoundError(`Version ${version} of note ${noteId}`);
  return { row, content: applyDeltas(current, chain.map((link) => JSON.parse(link.delta) as TextDelta)), current };
}

/**
 * A version against the current note as unified-diff hunks (3 lines of context). Lines are the
 * text split at each LF, so the hunks rebuild either text exactly, a last line without LF included.
 */
export async function diffVersion({ ctx, input }: { ctx: Ctx; input: { id: number; version: number } }): Promise<VersionDiff> {
  const { content, current } = await versionText(ctx, input.id, input.version);
  return { from: input.version, to: "current", hunks: diffHunks(content, current) };
}

/** Unified-diff hunks from `before` to `after`, over their lines as split at each LF (3 lines of context). */
export function diffHunks(before: string, after: string): VersionDiff["hunks"] {
  // One LF more on both sides: every line then ends with one, and no "no newline at end" marker is needed.
  const patch = structuredPatch("version", "current", `${before}\n`, `${after}\n`, undefined, undefined, { context: 3 });
  return patch.hunks.map((hunk) => ({
    old_start: hunk.oldStart,
    old_lines: hunk.oldLines,
    new_start: hunk.newStart,
    new_lines: hunk.newLines,
    lines: hunk.lines,
  }));
}

/** Makes a version's text current again; the text it replaces is kept as a version, so a restore is undone by restoring that one. */
export async function restoreVersion({ ctx, input }: { ctx: Ctx & { credential?: Credential }; input: { id: number; version: number } }): Promise<NoteRecord> {
  const { row, content } = await versionText(ctx, input.id, input.version);
  return updateNote({ ctx, input: { id: input.id, title: row.title, content, tags: JSON.parse(row.tags) as string[] }, writer: restoreWriter });
}
