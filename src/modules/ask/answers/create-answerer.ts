import type { ExtractorSettings } from "../../graph/create-extractor";
import type { Answerer } from "./answerer";

export interface AskSettings {
  /** ASK_MAX_INPUT_TOKENS: the most the passages sent to the LLM may cost. */
  maxInputTokens: number;
}

export const DEFAULT_ASK_MAX_INPUT_TOKENS = 8000;

/** The LLM that answers questions is the one that builds graphs; none with the local extractor. */
export function createAnswerer(graph: ExtractorSettings, _ask: AskSettings = { maxInputTokens: DEFAULT_ASK_MAX_INPUT_TOKENS }): Answerer | null {
  if (graph.extractor === "local") return null;
  return null;
}
