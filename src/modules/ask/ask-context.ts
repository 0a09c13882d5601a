import type { ServiceContext } from "../context";
import type { AskContext } from "./ask-question";
import { createAnswerer } from "./answers/create-answerer";
import { recordAskUsage } from "./ask-usage";
import { passagesByMeaning } from "../semantic/meaning-passages";

/** What a question needs from the services: the database, the user, and the configured LLM (if any). */
export function askContext(ctx: ServiceContext & { userId: number }): AskContext {
  return {
    db: ctx.db,
    userId: ctx.userId,
    answerer: createAnswerer(ctx.graphSettings, ctx.askSettings),
    recordUsage: (usage) => recordAskUsage(ctx.db, ctx.userId, usage),
    meaning: ctx.semantic ? (question) => passagesByMeaning(ctx.db, ctx.semantic, ctx.userId, question) : undefined,
  };
}
