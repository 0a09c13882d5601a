import type { Database } from "../../db/client";
import { log } from "../../log";
import { AnswerFailedError, type Answerer, type AnswerListener } from "./answers/answerer";
import { retrievePassages } from "./retrieve-passages";
import type { PassageHit } from "../semantic/meaning-passages";
import type { AskInput, AskPassage, AskResult } from "./schemas";

/** Told as a streamed question goes: the passages first, then the answer as it is written. */
export interface AskListener extends AnswerListener {
  passages(passages: AskPassage[], concepts: AskResult["concepts"]): void;
}

export interface AskContext {
  db: Database;
  userId: number;
  /** The configured LLM, or null (the local extractor): then the passages are the answer. */
  answerer: Answerer | null;
  /** Adds a question's LLM usage to the user's totals. */
  recordUsage?(usage: AskResult["usage"]): Promise<void>;
  /** The passages nearest the question in meaning (search by meaning set up), or null when not available now. */
  meaning?(question: string): Promise<PassageHit[] | null>;
}

const NO_USAGE = { llm_calls: 0, input_tokens: 0, output_tokens: 0 };

/**
 * Answers a question from the user's notes: the passages that answer it (always), and with an LLM
 * one answer citing them. An LLM that fails leaves the passages and says why in `error`.
 */
export async function askQuestion(
  { ctx, input }: { ctx: AskContext; input: AskInput },
  options: { listener?: AskListener; signal?: AbortSignal } = {},
): Promise<AskResult> {
  const meaning = (await ctx.meaning?.(input.question)) ?? undefined;
  const retrieval = await retrievePassages(ctx.db, { userId: ctx.userId, question: input.question, limit: input.limit, meaning });
  options.listener?.passages(retrieval.passages, retrieval.concepts);
  const result: AskResult = {
    question: input.question,
    answer: null,
    answered_by: null,
    passages: retrieval.passages,
    citations: [],
    concepts: retrieval.concepts,
    usage: { ...NO_USAGE },
    error: null,
  };
  if (!ctx.answerer) return result;
  if (retrieval.passages.length === 0) {
    // Nothing to answer from: no call is spent on a model that could only guess.
    result.error = "None of your notes match the question, so there is nothing to answer from";
    return result;
  }
  try {
    const answer = await ctx.answerer.answer(
      { question: input.question, passages: retrieval.passages, contents: retrieval.contents },
      options.listener,
      options.signal,
    );
    result.answer = answer.text;
    result.answered_by = ctx.answerer.name;
    result.citations = answer.citations;
    result.usage = answer.usage;
  } catch (error) {
    if (!(error instanceof AnswerFailedError)) throw error;
    log.warn("an answer failed; the passages are returned without it", error.message);
    result.error = error.message;
    result.usage = error.usage;
  }
  await ctx.recordUsage?.(result.usage);
  return result;
}
