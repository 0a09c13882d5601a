import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/procedures";
import { noteIdInput, noteSchema } from "../notes/schemas";
import * as s from "./schemas";
import { emptyTrash, listTrash, purgeFromTrash, restoreFromTrash } from "./trash";
import { diffVersion, getVersion, listVersions, restoreVersion } from "./versions";

const tags = ["history"];

export const historyRouter = router({
  versions: protectedProcedure
    .meta({
      access: "notes:read",
      openapi: {
        method: "GET",
        path: "/notes/{id}/versions",
        tags,
        summary: "A note's earlier versions, newest first",
        description:
          "Every change to a note's title, content or tags keeps the text it replaced. Quick successive edits by one client (each within 60 s of the one before, no other client's edit between) are one version. `by` says who wrote that version's text. At most NOTE_VERSIONS_MAX versions a note are kept.",
      },
    })
    .input(s.versionsInput)
    .output(s.versionPageSchema)
    .query(({ ctx, input }) => listVersions({ ctx, input })),

  version: protectedProcedure
    .meta({ access: "notes:read", openapi: { method: "GET", path: "/notes/{id}/versions/{version}", tags, summary: "One earlier version, with its content" } })
    .input(s.versionInput)
    .output(s.versionDetailSchema)
    .query(({ ctx, input }) => getVersion({ ctx, input })),

  diff: protectedProcedure
    .meta({
      access: "notes:read",
      openapi: {
        method: "GET",
        path: "/notes/{id}/versions/{version}/diff",
        tags,
        summary: "What changed from a version to the note as it is now, as unified-diff hunks",
        description:
          "Hunks with 3 lines of context, numbered as a unified diff (1-based; a hunk that only inserts has `old_lines` 0 and `old_start` the line after which it inserts). Lines are the texts split at each LF; each starts with ` `, `-` (only in the version) or `+` (only now).",
      },
    })
    .input(s.versionInput)
    .output(s.versionDiffSchema)
    .query(({ ctx, input }) => diffVersion({ ctx, input })),

  restoreVersion: protectedProcedure
    .meta({
      access: "notes:write",
      openapi: {
        method: "POST",
        path: "/notes/{id}/versions/{version}/restore",
        tags,
        summary: "Make an earlier version current again (the text it replaces is kept as a version)",
      },
    })
    .input(s.versionInput)
    .output(noteSchema)
    .mutation(({ ctx, input }) => restoreVersion({ ctx, input })),

  trash: protectedProcedure
    .meta({ access: "notes:read", openapi: { method: "GET", path: "/trash", tags, summary: "Deleted notes, newest deletion first, until they are purged (TRASH_DAYS)" } })
    .input(s.trashInput)
    .output(s.trashPageSchema)
    .query(({ ctx, input }) => listTrash({ ctx, input })),

  restoreFromTrash: protectedProcedure
    .meta({ access: "notes:write", openapi: { method: "POST", path: "/trash/{id}/restore", tags, summary: "Bring a deleted note back: same id, text, tags, files, source and history" } })
    .input(noteIdInput)
    .output(noteSchema)
    .mutation(({ ctx, input }) => restoreFromTrash({ ctx, input })),

  purge: protectedProcedure
    .meta({ access: "notes:write", openapi: { method: "DELETE", path: "/trash/{id}", tags, summary: "Delete a note in the trash for good, with its history and the files no other note shows" }, successStatus: 204 })
    .input(noteIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => purgeFromTrash({ ctx, input })),

  emptyTrash: protectedProcedure
    .meta({
      access: "notes:write",
      openapi: { method: "DELETE", path: "/trash", tags, summary: "Empty the trash: every note in it deleted for good, as DELETE /api/trash/{id} deletes one" },
      successStatus: 204,
    })
    .input(z.void())
    .output(z.void())
    .mutation(({ ctx }) => emptyTrash({ ctx })),
});
