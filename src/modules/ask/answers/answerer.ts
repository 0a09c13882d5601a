import type { AskCitation, AskPassage } from "../schemas";

/** What an answer is written from: the retrieved passages, best first, and their notes' content. */
export interface AnswerSources {
  question: string;
  passages: AskPassage[];
  /** Note id → content, so a citation maps to exact offsets of its note. */
  contents: Map<number, string>;
}

/** Told as the answer is written, for the event stream. */
export interface AnswerListener {
  delta(text: string): void;
  /** `n` is the marker's number in the answer. */
  citation(n: number, citation: AskCitation): void;
}

export interface Answer {
  text: string;
  citations: AskCitation[];
  usage: { llm_calls: number; input_tokens: number; output_tokens: number };
}

/** One LLM's way of answering from passages with citations: one call per question. */
export interface Answerer {
  readonly name: "anthropic" | "openai";
  answer(sources: AnswerSources, listener: AnswerListener | undefined, signal: AbortSignal | undefined): Promise<Answer>;
}

/** The LLM failed, with what was spent before it did; the message says why in words a user can act on. */
export class AnswerFailedError extends Error {
  override name = "AnswerFailedError";
  constructor(
    message: string,
    readonly usage: Answer["usage"] = { llm_calls: 1, input_tokens: 0, output_tokens: 0 },
  ) {
    super(message);
  }
}

/** How long one answer may take, retries and Retry-After waits included: inside the contract's 30 s for a JSON request. */
export const ANSWER_DEADLINE_MS = 25_000;

/** The caller's signal (a closed stream), or the answer's deadline, whichever comes first. */
export function withAnswerDeadline(signal: AbortSignal | undefined): AbortSignal {
  const deadline = AbortSignal.timeout(ANSWER_DEADLINE_MS);
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}
