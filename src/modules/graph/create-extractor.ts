import type { Extractor, NoteForExtraction } from "./extraction";
import { createAnthropicExtractor, DEFAULT_ANTHROPIC_MODEL } from "./extractors/anthropic";
import { PROMPT_VERSION } from "./extractors/anthropic/prompt";
import { buildCorpusStats, createLocalExtractor } from "./extractors/local";

export interface ExtractorSettings {
  extractor: "anthropic" | "local";
  llmConcurrency: number;
  /** GRAPH_MAX_LLM_CALLS: a build's cap when its request sets none. */
  maxLlmCalls?: number;
  anthropic: { apiKey?: string; baseURL?: string; model?: string };
}

/**
 * The extractor for one build. The Anthropic one makes its calls for a note one after another (the
 * build bounds how many notes are in flight); the local one scores key phrases against all of the
 * user's notes.
 */
export function createBuildExtractor(settings: ExtractorSettings, allNotes: NoteForExtraction[]): Extractor {
  if (settings.extractor === "anthropic") {
    return createAnthropicExtractor({
      apiKey: settings.anthropic.apiKey!,
      baseURL: settings.anthropic.baseURL,
      model: settings.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL,
    });
  }
  return createLocalExtractor(buildCorpusStats(allNotes));
}

/** Raise when the local extractor's output changes: saved extractions made with an older one are redone. */
export const LOCAL_EXTRACTOR_VERSION = 1;

export interface ExtractorIdentity {
  extractor: "anthropic" | "local";
  /** null for the local extractor. */
  model: string | null;
  promptVersion: number;
  /** How the provider is made to answer in the schema: Anthropic's forced tool call; null for local. */
  structuredOutput: "tools" | null;
}

/** What a saved extraction records about what made it, and what status and dry runs name. */
export function extractorIdentity(settings: ExtractorSettings): ExtractorIdentity {
  if (settings.extractor === "anthropic") {
    return { extractor: "anthropic", model: settings.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL, promptVersion: PROMPT_VERSION, structuredOutput: "tools" };
  }
  return { extractor: "local", model: null, promptVersion: LOCAL_EXTRACTOR_VERSION, structuredOutput: null };
}
