import { protectedProcedure, router } from "../../trpc/procedures";
import { askContext } from "./ask-context";
import { askQuestion } from "./ask-question";
import { askInput, askResultSchema } from "./schemas";

export const askRouter = router({
  ask: protectedProcedure
    .meta({ access: "ask",
      openapi: {
        method: "POST",
        path: "/ask",
        tags: ["ask"],
        summary: "Ask your notes: the passages that answer a question, and with an LLM an answer citing them",
        description:
          "Returns the passages of your own notes that best answer the question (paragraphs or whole sentences, each exactly `content.slice(start, end)` of its note), found by full-text search over the question's words (any of them) and through the knowledge graph (concepts the question names by label or alias, and their neighbours). With an LLM configured (Anthropic or an OpenAI-compatible server), one call writes an answer in the question's language from those passages only, each statement marked `[n]` into `citations`, whose `quote` is exactly `content.slice(start, end)` of the cited note. With the local extractor there is no LLM call: `answer` and `answered_by` are null and the passages are the answer. When the LLM fails, the passages still come back and `error` says why. Send `Accept: text/event-stream` to receive the same response as server-sent events: `passages`, then `delta` and `citation` as the answer is written, then `done` with the whole response.",
      },
    })
    .input(askInput)
    .output(askResultSchema)
    .mutation(({ ctx, input }) => askQuestion({ ctx: askContext(ctx), input })),
});
