import { z } from "zod";
import { noteIdSchema, pageEnvelope, pageQuery } from "../notes/schemas";

const versionNumber = z.coerce
  .number({ error: "Must be a positive integer version" })
  .int("Must be a positive integer version")
  .positive("Must be a positive integer version")
  .max(Number.MAX_SAFE_INTEGER);

export const versionsInput = z.object({ id: noteIdSchema, ...pageQuery });
export const versionInput = z.object({ id: noteIdSchema, version: versionNumber });

const writerSchema = z
  .object({
    kind: z.enum(["session", "token", "connector", "import", "restore"]),
    name: z.string().nullable().describe("The token's or connector's name (for an import, its platform); null for a login session"),
  })
  .describe("Who wrote this version's text")
  .meta({ id: "NoteVersionAuthor" });

export const versionItemSchema = z
  .object({
    version: z.number().int().positive(),
    title: z.string(),
    tags: z.array(z.string()),
    size: z.number().int().min(0).describe("UTF-8 bytes of the version's content"),
    created_at: z.iso.datetime().describe("When this text was written"),
    replaced_at: z.iso.datetime().describe("When a newer text replaced it"),
    by: writerSchema,
  })
  .meta({ id: "NoteVersion" });

export const versionPageSchema = pageEnvelope(versionItemSchema, "NoteVersionPage");
export const versionDetailSchema = versionItemSchema.extend({ content: z.string() }).meta({ id: "NoteVersionDetail" });

export const versionDiffSchema = z
  .object({
    from: z.number().int().positive().describe("The version"),
    to: z.literal("current").describe("The note as it is now"),
    hunks: z.array(
      z.object({
        old_start: z.number().int().min(0),
        old_lines: z.number().int().min(0),
        new_start: z.number().int().min(0),
        new_lines: z.number().int().min(0),
        lines: z.array(z.string()).describe("Each line prefixed with ` ` (context), `-` (only in the version) or `+` (only now)"),
      }),
    ),
  })
  .meta({ id: "NoteVersionDiff" });

export const trashInput = z.object(pageQuery).prefault({});
export const trashItemSchema = z
  .object({
    id: z.number().int().positive(),
    title: z.string(),
    tags: z.array(z.string()),
    excerpt: z.string(),
    deleted_at: z.iso.datetime(),
    purge_at: z.iso.datetime().describe("When it leaves the trash for good (TRASH_DAYS after deletion)"),
  })
  .meta({ id: "TrashedNote" });
export const trashPageSchema = pageEnvelope(trashItemSchema, "TrashPage");

export type VersionItem = z.infer<typeof versionItemSchema>;
export type VersionDiff = z.infer<typeof versionDiffSchema>;
