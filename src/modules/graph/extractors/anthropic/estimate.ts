import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";

// Han, kana and hangul: Claude's tokenizer gives about one token per character (LLM-PROVIDERS.md §4).
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/g;
const CJK_TOKENS_PER_CHAR = 1;
// Latin text and JSON measure 4.77–4.89 characters per token; 4.5 errs towards more.
const OTHER_CHARS_PER_TOKEN = 4.5;

/**
 * Tokens in a text without a tokenizer or a network call: CJK characters one each, the rest 4.5
 * characters per token. An approximation (a dry run's estimate, a budget's reservation), reconciled
 * with the usage each answer reports.
 */
export function estimateTextTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil(cjk * CJK_TOKENS_PER_CHAR + (text.length - cjk) / OTHER_CHARS_PER_TOKEN);
}

/** The request body as it is sent: system prompt, tool schema and messages all count. */
export function estimateInputTokens(params: MessageCreateParamsNonStreaming): number {
  return estimateTextTokens(JSON.stringify(params));
}
