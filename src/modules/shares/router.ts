import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/procedures";
import { createShare, listShares, revokeShare } from "./manage-shares";
import * as s from "./schemas";

const tags = ["shares"];

export const sharesRouter = router({
  create: protectedProcedure
    .meta({
      access: "notes:write",
      openapi: {
        method: "POST",
        path: "/notes/{id}/shares",
        tags,
        summary: "Make a public, read-only link to a note",
        description:
          "`GET /s/<token>` shows the note as it is now to anyone with the link (its Markdown rendered and sanitised, stored images included, no script, `noindex`); `/s/<token>.md` gives the Markdown. An expired or revoked link, or a note in the trash, is a 404. `expires_in_days` 1..365; omitted: no expiry. At most 100 live links a note (expired and revoked ones do not count): a 101st is a 409.",
      },
      successStatus: 201,
    })
    .input(s.createShareInput)
    .output(s.shareSchema)
    .mutation(({ ctx, input }) => createShare({ ctx, input })),

  list: protectedProcedure
    .meta({ access: "notes:read", openapi: { method: "GET", path: "/notes/{id}/shares", tags, summary: "A note's share links that still work" } })
    .input(s.noteSharesInput)
    .output(s.shareListSchema)
    .query(({ ctx, input }) => listShares({ ctx, input })),

  revoke: protectedProcedure
    .meta({ access: "notes:write", openapi: { method: "DELETE", path: "/shares/{id}", tags, summary: "Revoke a share link: its page is a 404 at once" }, successStatus: 204 })
    .input(s.shareIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeShare({ ctx, input })),
});
