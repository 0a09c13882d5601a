// Han, kana and hangul, counted apart from the rest (LLM-PROVIDERS.md §4).
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/g;

export interface TokenRatios {
  cjkTokensPerChar: number;
  otherCharsPerToken: number;
}

/** Claude: about one token per CJK character; Latin text and JSON 4.77–4.89 characters per token, 4.5 errs towards more. */
export const CLAUDE_TOKENS: TokenRatios = { cjkTokensPerChar: 1, otherCharsPerToken: 4.5 };

/**
 * The OpenAI-compatible servers: o200k (GPT-4o/5) 0.75 tokens per Chinese character, Qwen 0.6,
 * DeepSeek 0.55; the highest is used so a request bound is never under-counted.
 */
export const OPENAI_COMPATIBLE_TOKENS: TokenRatios = { cjkTokensPerChar: 0.75, otherCharsPerToken: 4.5 };

/**
 * Tokens in a text without a tokenizer or a network call. An approximation (a dry run's estimate, a
 * budget's reservation, a context bound), reconciled with the usage each answer reports.
 */
export function estimateTextTokens(text: string, ratios: TokenRatios = CLAUDE_TOKENS): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil(cjk * ratios.cjkTokensPerChar + (text.length - cjk) / ratios.otherCharsPerToken);
}
