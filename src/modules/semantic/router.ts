import { protectedProcedure, router } from "../../trpc/procedures";
import { z } from "zod";
import { mergeSuggestions } from "./merge-suggestions";
import { relatedNotes } from "./related-notes";
import * as s from "./schemas";
import { getSearchStatus } from "./search-status";

const tags = ["search"];

export const semanticRouter = router({
  status: protectedProcedure
    .meta({
      access: "notes:read",
      openapi: {
        method: "GET",
        path: "/search/status",
        tags,
        summary: "Search by meaning: the model, how many of your notes are embedded, and the mode searches use now",
      },
    })
    .input(z.object({}).prefault({}))
    .output(s.searchStatusSchema)
    .query(({ ctx }) => getSearchStatus({ ctx })),

  related: protectedProcedure
    .meta({
      access: "notes:read",
      openapi: {
        method: "GET",
        path: "/notes/{id}/related",
        tags: ["notes"],
        summary: "Your notes nearest this one in meaning (by their passages), best first; without embeddings, by shared graph concepts",
      },
    })
    .input(s.relatedInput)
    .output(s.relatedNotesSchema)
    .query(({ ctx, input }) => relatedNotes({ ctx, input })),

  mergeSuggestions: protectedProcedure
    .meta({
      access: "graph:read",
      openapi: {
        method: "GET",
        path: "/knowledge-graph/merge-suggestions",
        tags: ["knowledge-graph"],
        summary: "Pairs of your concepts whose labels differ but name the same thing, judged by the labels' meaning alone (merge them with POST /api/knowledge-graph/nodes/{id}/merge)",
      },
    })
    .input(s.mergeSuggestionsInput)
    .output(s.mergeSuggestionsSchema)
    .query(({ ctx, input }) => mergeSuggestions({ ctx, input })),
});

