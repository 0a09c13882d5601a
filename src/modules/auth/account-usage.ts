import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";

export interface AccountUsage {
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
  transcribed_seconds: number;
  stt_requests: number;
}

/** The account's all-time LLM usage: every graph build's (kept on its row) and every question's (ask_usage). */
export async function accountUsage(db: Database, userId: number): Promise<AccountUsage> {
  const row = await db.get<{ calls: number | null; input: number | null; output: number | null }>(sql`
    select sum(calls) as calls, sum(input) as input, sum(output) as output from (
      select sum(llm_calls) as calls, sum(input_tokens) as input, sum(output_tokens) as output from graph_builds where user_id = ${userId}
      union all
      select llm_calls, input_tokens, output_tokens from ask_usage where user_id = ${userId})`);
  // Transcription is counted on the import tasks that asked for it.
  const stt = await db.get<{ seconds: number | null; requests: number | null }>(
    sql`select sum(stt_seconds) as seconds, sum(stt_requests) as requests from import_tasks where user_id = ${userId}`,
  );
  return {
    llm_calls: Number(row?.calls ?? 0),
    input_tokens: Number(row?.input ?? 0),
    output_tokens: Number(row?.output ?? 0),
    transcribed_seconds: Number(stt?.seconds ?? 0),
    stt_requests: Number(stt?.requests ?? 0),
  };
}
