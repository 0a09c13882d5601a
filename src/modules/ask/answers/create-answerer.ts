import type { ExtractorSettings } from "../../graph/create-extractor";
import { DEFAULT_ANTHROPIC_MODEL } from "../../llm/default-model";
import type { Answerer } from "./answerer";

export interface AskSettings {
  /** ASK_MAX_INPUT_TOKENS: the most the passages sent to the LLM may cost. */
  maxInputTokens: number;
}

export const DEFAULT_ASK_MAX_INPUT_TOKENS = 8000;

/**
 * The LLM that answers questions is the one that builds graphs; none with the local extractor. Its
 * SDK is loaded with the first question, not by every process at start-up (see createBuildExtractor).
 */
export function createAnswerer(graph: ExtractorSettings, ask: AskSettings = { maxInputTokens: DEFAULT_ASK_MAX_INPUT_TOKENS }): Answerer | null {
  if (graph.extractor === "anthropic" && graph.anthropic.apiKey) {
    const settings = { apiKey: graph.anthropic.apiKey, baseURL: graph.anthropic.baseURL, model: graph.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL, maxInputTokens: ask.maxInputTokens };
    return loadedOnFirstAnswer("anthropic", async () => (await import("./anthropic")).createAnthropicAnswerer(settings));
  }
  if (graph.extractor === "openai" && graph.openai) {
    const settings = { settings: graph.openai, maxInputTokens: ask.maxInputTokens };
    return loadedOnFirstAnswer("openai", async () => (await import("./openai")).createOpenAiAnswerer(settings));
  }
  return null;
}

function loadedOnFirstAnswer(name: Answerer["name"], load: () => Promise<Answerer>): Answerer {
  let answerer: Promise<Answerer> | undefined;
  return { name, answer: async (...args) => (await (answerer ??= load())).answer(...args) };
}
