import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { askUsage } from "../../db/schema";
import type { AskResult } from "./schemas";

/** Adds a question's LLM usage to the user's all-time totals (nothing to add without a call). */
export async function recordAskUsage(db: Database, userId: number, usage: AskResult["usage"]): Promise<void> {
  if (usage.llm_calls === 0) return;
  await db
    .insert(askUsage)
    .values({ userId, questions: 1, llmCalls: usage.llm_calls, inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, updatedAt: Date.now() })
    .onConflictDoUpdate({
      target: askUsage.userId,
      set: {
        questions: sql`${askUsage.questions} + 1`,
        llmCalls: sql`${askUsage.llmCalls} + ${usage.llm_calls}`,
        inputTokens: sql`${askUsage.inputTokens} + ${usage.input_tokens}`,
        outputTokens: sql`${askUsage.outputTokens} + ${usage.output_tokens}`,
        updatedAt: Date.now(),
      },
    });
}
