import { z } from "zod";
import { noteIdSchema } from "../notes/schemas";

/** Links per note: plenty for sending one to many people, bounded so a script cannot fill the table. */
export const MAX_SHARES_PER_NOTE = 100;

export const shareIdInput = z.object({ id: noteIdSchema.describe("The share link's id") });

export const createShareInput = z.object({
  id: noteIdSchema.describe("The note's id"),
  expires_in_days: z.number().int().min(1).max(365).nullable().optional().describe("Days until the link stops working, 1..365; omitted or null: it never expires"),
});

export const noteSharesInput = z.object({ id: noteIdSchema.describe("The note's id") });

export const shareSchema = z
  .object({
    id: z.number().int().positive(),
    note_id: z.number().int().positive(),
    url: z.string().describe("`<PUBLIC_URL>/s/<token>`: anyone with it reads the note as it is now; add `.md` for the Markdown"),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().nullable().describe("null: never expires"),
  })
  .meta({ id: "ShareLink" });

export const shareListSchema = z.object({ items: z.array(shareSchema) }).meta({ id: "ShareLinkList" });
