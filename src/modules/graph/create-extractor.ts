import type { Extractor, NoteForExtraction } from "./extraction";
import { createAnthropicExtractor, DEFAULT_ANTHROPIC_MODEL } from "./extractors/anthropic";
import { buildCorpusStats, createLocalExtractor } from "./extractors/local";

export interface ExtractorSettings {
  extractor: "anthropic" | "local";
  llmConcurrency: number;
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
