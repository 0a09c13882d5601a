import { integer, sqliteTable } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/** A user's all-time LLM usage on questions (graph builds keep theirs on their own rows). */
export const askUsage = sqliteTable("ask_usage", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** Questions that made an LLM call. */
  questions: integer("questions").notNull().default(0),
  llmCalls: integer("llm_calls").notNull().default(0),
  inputTokens: integer("input_tokens").notNull().default(0),
  outputTokens: integer("output_tokens").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
});
