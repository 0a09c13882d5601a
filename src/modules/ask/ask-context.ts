import type { ServiceContext } from "../context";
import type { AskContext } from "./ask-question";
import { createAnswerer } from "./answers/create-answerer";
import { recordAskUsage } from "./ask-usage";

/** What a question needs from the services: the database, the user, and the configured LLM (if any). */
export function askContext(ctx: ServiceContext & { userId: number }): AskContext {
  return {
    db: ctx.db,
    userId: ctx.userId,
    answerer: createAnswerer(ctx.graphSettings, ctx.askSettings),
    recordUsage: (usage) => recordAskUsage(ctx.db, ctx.userId, usage),
  };
}
