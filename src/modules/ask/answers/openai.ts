import { estimateTextTokens, OPENAI_COMPATIBLE_TOKENS } from "../../llm/estimate-tokens";
import { createOpenAiClient, type OpenAiSettings } from "../../llm/providers/openai";
import { LlmRequestError } from "../../llm/request-error";
import { AnswerFailedError, withAnswerDeadline, type Answer, type Answerer, type AnswerListener, type AnswerSources } from "./answerer";
import { passagesWithin } from "./input-budget";
import { citeQuotes } from "./quoted-answer";

// A question is answered within the contract's 30 s: one retry, each attempt bounded.
const ASK_TIMEOUT_MS = 12_000;
const MAX_OUTPUT_TOKENS = 1024;

export const QUOTED_ANSWER_SYSTEM_PROMPT = [
  "You answer a person's question from numbered passages of their own notes.",
  "Use only what the passages say; if they do not answer the question, say so in one sentence.",
  "Answer in the language of the question, briefly. After each statement put a marker [k] (k = 1, 2, …).",
  'Then write a line "QUOTES" and, for each marker, a line: [k] "the exact words of a passage the statement rests on", copied character for character.',
].join(" ");

/**
 * Answers with an OpenAI-compatible server in one Chat Completions call. Such servers have no
 * citations of their own, so the model quotes its sources, and only quotes found in a passage
 * (whitespace and quote marks aside) are kept as citations (see quoted-answer.ts). The call does
 * not stream: a listener hears the whole answer, then its citations.
 */
export function createOpenAiAnswerer(options: { settings: OpenAiSettings; maxInputTokens: number }): Answerer {
  const client = createOpenAiClient({ ...options.settings, timeoutMs: Math.min(options.settings.timeoutMs, ASK_TIMEOUT_MS), maxRetries: 1 });
  const budget = Math.min(options.maxInputTokens, options.settings.contextTokens - MAX_OUTPUT_TOKENS);

  async function answer(sources: AnswerSources, listener: AnswerListener | undefined, signal: AbortSignal | undefined): Promise<Answer> {
    const overhead = estimateTextTokens(QUOTED_ANSWER_SYSTEM_PROMPT + sources.question, OPENAI_COMPATIBLE_TOKENS) + 50;
    const passages = passagesWithin(sources.passages, budget - overhead, OPENAI_COMPATIBLE_TOKENS);
    if (passages.length === 0) {
      throw new AnswerFailedError(`ASK_MAX_INPUT_TOKENS (${options.maxInputTokens}) leaves no room for a passage`, { llm_calls: 0, input_tokens: 0, output_tokens: 0 });
    }
    const prompt = [
      ...passages.map((passage, index) => `<passage ${index + 1}: ${passage.title}>\n${passage.text}\n</passage ${index + 1}>`),
      `Question: ${sources.question}`,
    ].join("\n\n");
    let reply;
    try {
      reply = await client.chat({ system: QUOTED_ANSWER_SYSTEM_PROMPT, prompt, maxTokens: MAX_OUTPUT_TOKENS, temperature: 0, signal: withAnswerDeadline(signal) });
    } catch (error) {
      if (error instanceof LlmRequestError) throw new AnswerFailedError(error.message);
      if (signal?.aborted) throw new AnswerFailedError("the question was closed before the answer came");
      throw new AnswerFailedError(`could not reach the OpenAI-compatible server: ${error instanceof Error ? error.message : String(error)}`);
    }
    const usage = { llm_calls: 1, input_tokens: reply.usage.input_tokens, output_tokens: reply.usage.output_tokens };
    const { text, quotes } = splitQuotedAnswer(reply.text);
    if (!text) throw new AnswerFailedError("the model gave no answer", usage);
    const cited = citeQuotes(text, quotes, passages, sources.contents);
    listener?.delta(cited.text);
    cited.citations.forEach((citation, index) => listener?.citation(index + 1, citation));
    return { ...cited, usage };
  }

  return { name: "openai", answer };
}

const QUOTE_LINE = /^\s*[-*]?\s*\[(\d+)\]\s*[:：-]?\s*(.+?)\s*$/;

/** The answer before its QUOTES line, and each `[k] "quote"` line after it (quote marks taken off). */
export function splitQuotedAnswer(reply: string): { text: string; quotes: { marker: number; quote: string }[] } {
  // "QUOTES", "Quotes:", "**Quotes:**", "## Quotes": however the model dresses the heading.
  const heading = /^[\s*#_]*quotes[\s*_]*[:：]?[\s*_]*$/im.exec(reply);
  const text = (heading ? reply.slice(0, heading.index) : reply).trim();
  const quotes: { marker: number; quote: string }[] = [];
  for (const line of heading ? reply.slice(heading.index + heading[0].length).split("\n") : []) {
    const match = QUOTE_LINE.exec(line);
    if (!match) continue;
    const quote = match[2]!.replace(/^["“「『']+|["”」』']+$/g, "").trim();
    if (quote) quotes.push({ marker: Number(match[1]), quote });
  }
  return { text, quotes };
}
