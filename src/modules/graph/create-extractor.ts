import type { Extractor, NoteForExtraction } from "./extraction";
import { createAnthropicExtractor, DEFAULT_ANTHROPIC_MODEL } from "./extractors/anthropic";
import { buildCorpusStats, createLocalExtractor } from "./extractors/local";
import { createConcurrencyLimit } from "./concurrency-limit";

export interface ExtractorSettings {
  extractor: "anthropic" | "local";
  llmConcurrency: number;
  anthropic: { apiKey?: string; baseURL?: string; model?: string };
}

/**
 * The extractor for one build. The Anthropic one shares a limit of `llmConcurrency` calls in
 * flight across the build; the local one scores key phrases against all of the user's notes.
 */
export function createBuildExtractor(settings: ExtractorSettings, allNotes: NoteForExtraction[]): Extractor {
  if (settings.extractor === "anthropic") {
    return createAnthropicExtractor({
      apiKey: settings.anthropic.apiKey!,
      baseURL: settings.anthropic.baseURL,
      model: settings.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL,
      limiter: createConcurrencyLimit(settings.llmConcurrency),
    });
  }
  return createLocalExtractor(buildCorpusStats(allNotes));
}
