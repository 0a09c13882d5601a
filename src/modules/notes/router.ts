import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createNote } from "./create-note";
import { trashNote } from "../history/trash";
import { exportNotes } from "./export-notes";
import { getNote } from "./get-note";
import { listNotes } from "./list-notes";
import * as s from "./schemas";
import { updateNote } from "./update-note";
import { protectedProcedure, router } from "../../trpc/procedures";
import { authorize } from "../tokens/credential";

const tags = ["notes"];

export const notesRouter = router({
  list: protectedProcedure
    .meta({ access: "notes:read", openapi: { method: "GET", path: "/notes", tags, summary: "List notes, newest first, optionally by tag; or search them with `q`" } })
    .input(s.listNotesInput)
    .output(s.notePageSchema)
    .query(({ ctx, input }) => listNotes({ ctx, input })),

  create: protectedProcedure
    .meta({ access: "notes:write", openapi: { method: "POST", path: "/notes", tags, summary: "Create a note" }, successStatus: 201 })
    .input(s.createNoteInput)
    .output(s.noteSchema)
    .mutation(({ ctx, input }) => createNote({ ctx, input })),

  get: protectedProcedure
    .meta({ access: "notes:read", openapi: { method: "GET", path: "/notes/{id}", tags, summary: "Read a note" } })
    .input(s.noteIdInput)
    .output(s.noteSchema)
    .query(({ ctx, input }) => getNote({ ctx, input })),

  update: protectedProcedure
    .meta({ access: "notes:write", openapi: { method: "PUT", path: "/notes/{id}", tags, summary: "Update a note (omitted fields keep their value)" } })
    .input(s.updateNoteInput)
    .output(s.noteSchema)
    .mutation(({ ctx, input }) => updateNote({ ctx, input })),

  delete: protectedProcedure
    .meta({ access: "notes:write", openapi: { method: "DELETE", path: "/notes/{id}", tags, summary: "Delete a note: it moves to the trash (GET /api/trash), with its history and files, until restored or purged" }, successStatus: 204 })
    .input(s.noteIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => trashNote({ ctx, input })),

  export: protectedProcedure
    .meta({ access: "notes:read",
      openapi: {
        method: "POST",
        path: "/notes/export",
        tags,
        summary: "Export notes as a ZIP of Markdown files",
        description:
          "Streams `application/zip`: one `<slug-of-title>-<id>.md` per note with YAML front matter. An empty body or `{}` exports every note; `ids` and `tag` narrow it (both: notes matching both). Ids that are not yours are ignored.",
      },
      download: "application/zip",
    })
    .input(s.exportNotesInput)
    .output(z.instanceof(Response).meta({ override: { type: "string", format: "binary" } }))
    .mutation(({ ctx, input }) => {
      // graph.json is GET /api/knowledge-graph in the ZIP, so it needs what that read needs; checked before any byte is sent.
      if (input.include_graph) authorize(ctx.credential, "graph:read");
      if (ctx.transport !== "download") {
        throw new TRPCError({ code: "METHOD_NOT_SUPPORTED", message: "The export is a binary download: POST /api/notes/export" });
      }
      return exportNotes({ ctx, input });
    }),
});
