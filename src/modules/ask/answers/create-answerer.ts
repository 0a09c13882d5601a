import type { ExtractorSettings } from "../../graph/create-extractor";
import { DEFAULT_ANTHROPIC_MODEL } from "../../graph/extractors/anthropic";
import type { Answerer } from "./answerer";
import { createAnthropicAnswerer } from "./anthropic";
import { createOpenAiAnswerer } from "./openai";

export interface AskSettings {
  /** ASK_MAX_INPUT_TOKENS: the most the passages sent to the LLM may cost. */
  maxInputTokens: number;
}

export const DEFAULT_ASK_MAX_INPUT_TOKENS = 8000;

/** The LLM that answers questions is the one that builds graphs; none with the local extractor. */
export function createAnswerer(graph: ExtractorSettings, ask: AskSettings = { maxInputTokens: DEFAULT_ASK_MAX_INPUT_TOKENS }): Answerer | null {
  if (graph.extractor === "anthropic" && graph.anthropic.apiKey) {
    return createAnthropicAnswerer({
      apiKey: graph.anthropic.apiKey,
      baseURL: graph.anthropic.baseURL,
      model: graph.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL,
      maxInputTokens: ask.maxInputTokens,
    });
  }
  if (graph.extractor === "openai" && graph.openai) return createOpenAiAnswerer({ settings: graph.openai, maxInputTokens: ask.maxInputTokens });
  return null;
}
