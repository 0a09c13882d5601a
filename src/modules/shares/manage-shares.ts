import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { notes, shareLinks } from "../../db/schema";
import { ConflictError, NotFoundError } from "../errors";
import * as s from "./schemas";

type Ctx = { db: Database; userId: number; publicUrl?: () => string };
type ShareRow = typeof shareLinks.$inferSelect;
const DAY_MS = 24 * 60 * 60 * 1000;

/** 144 random bits, URL-safe: the whole of a link's secret. */
export function newShareToken(): string {
  return randomBytes(18).toString("base64url");
}

export const SHARE_TOKEN = /^[A-Za-z0-9_-]{24}$/;

function toShareRecord(ctx: Ctx, row: ShareRow) {
  return {
    id: row.id,
    note_id: row.noteId,
    url: `${ctx.publicUrl?.() ?? ""}/s/${row.token}`,
    created_at: new Date(row.createdAt).toISOString(),
    expires_at: row.expiresAt === null ? null : new Date(row.expiresAt).toISOString(),
  };
}

/** A link that still works at `now`: no expiry, or one still ahead. */
const live = (now: number) => or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, now));

/** A new public link to one of the user's notes (not one in the trash). */
export async function createShare({ ctx, input, now = Date.now() }: { ctx: Ctx; input: z.infer<typeof s.createShareInput>; now?: number }) {
  const expiresAt = input.expires_in_days == null ? null : now + input.expires_in_days * DAY_MS;
  // The note's expired links can be neither listed nor revoked: they go here rather than wait for the hourly sweep.
  await ctx.db.delete(shareLinks).where(and(eq(shareLinks.userId, ctx.userId), eq(shareLinks.noteId, input.id), lte(shareLinks.expiresAt, now)));
  // The note's ownership and the cap (live links only) are checked in the insert itself.
  const [row] = await ctx.db.all<{ id: number; token: string }>(sql`
    insert into ${shareLinks} (user_id, note_id, token, created_at, expires_at)
    select ${ctx.userId}, ${input.id}, ${newShareToken()}, ${now}, ${expiresAt}
    where exists (select 1 from ${notes} where id = ${input.id} and user_id = ${ctx.userId})
      and (select count(*) from ${shareLinks} where user_id = ${ctx.userId} and note_id = ${input.id} and ${live(now)}) < ${s.MAX_SHARES_PER_NOTE}
    returning id, token`);
  if (!row) {
    await ownNote(ctx, input.id);
    throw new ConflictError(`Note ${input.id} has ${s.MAX_SHARES_PER_NOTE} live share links, the most a note may have; revoke one first`);
  }
  return toShareRecord(ctx, { id: row.id, userId: ctx.userId, noteId: input.id, token: row.token, createdAt: now, expiresAt });
}

/** The note's links that still work (expired ones are left out), oldest first. */
export async function listShares({ ctx, input, now = Date.now() }: { ctx: Ctx; input: { id: number }; now?: number }) {
  await ownNote(ctx, input.id);
  const rows = await ctx.db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.userId, ctx.userId), eq(shareLinks.noteId, input.id), live(now)))
    .orderBy(asc(shareLinks.id));
  return { items: rows.map((row) => toShareRecord(ctx, row)) };
}

/** Revoking deletes the link: its page is a 404 from the next request on. */
export async function revokeShare({ ctx, input }: { ctx: Ctx; input: { id: number } }): Promise<void> {
  const deleted = await ctx.db.delete(shareLinks).where(and(eq(shareLinks.id, input.id), eq(shareLinks.userId, ctx.userId))).returning({ id: shareLinks.id });
  if (deleted.length === 0) throw new NotFoundError(`Share link ${input.id}`);
}

async function ownNote(ctx: Ctx, id: number): Promise<void> {
  const [note] = await ctx.db.select({ id: notes.id }).from(notes).where(and(eq(notes.id, id), eq(notes.userId, ctx.userId)));
  if (!note) throw new NotFoundError(`Note ${id}`);
}
