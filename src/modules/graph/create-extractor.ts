import type { Extractor, ExtractorName, NoteForExtraction } from "./extraction";
import { PROMPT_VERSION } from "./extractors/llm/prompt";
import { buildCorpusStats, createLocalExtractor } from "./extractors/local";
import { DEFAULT_ANTHROPIC_MODEL } from "../llm/default-model";
import type { OpenAiSettings } from "../llm/providers/openai-settings";
import { rememberedStep, type StructuredOutputStep } from "../llm/providers/openai-structured";

export interface ExtractorSettings {
  extractor: ExtractorName;
  llmConcurrency: number;
  /** GRAPH_MAX_LLM_CALLS: a build's cap when its request sets none. */
  maxLlmCalls?: number;
  anthropic: { apiKey?: string; baseURL?: string; model?: string };
  /** Set (OPENAI_MODEL required) when the extractor is `openai`. */
  openai?: OpenAiSettings;
}

/**
 * The extractor for one build. The LLM ones make their calls for a note one after another (the
 * build bounds how many notes are in flight); the local one scores key phrases against all of the
 * user's notes. An LLM's SDK (the two: ~315 modules, ~5 MiB of an API process's memory) is loaded
 * with the first build or estimate that uses it, not by every process at start-up.
 */
export async function createBuildExtractor(settings: ExtractorSettings, allNotes: NoteForExtraction[]): Promise<Extractor> {
  if (settings.extractor === "anthropic") {
    const { createAnthropicExtractor } = await import("./extractors/anthropic");
    return createAnthropicExtractor({
      apiKey: settings.anthropic.apiKey!,
      baseURL: settings.anthropic.baseURL,
      model: settings.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL,
    });
  }
  if (settings.extractor === "openai") {
    const { createOpenAiExtractor } = await import("./extractors/openai");
    return createOpenAiExtractor(settings.openai!);
  }
  return createLocalExtractor(buildCorpusStats(allNotes));
}

/** Raise when the local extractor's output changes: saved extractions made with an older one are redone. */
export const LOCAL_EXTRACTOR_VERSION = 2;

export interface ExtractorIdentity {
  extractor: ExtractorName;
  /** null for the local extractor. */
  model: string | null;
  promptVersion: number;
  /**
   * How the provider is made to answer in the schema: Anthropic's forced tool call; for an
   * OpenAI-compatible server the step it last accepted (a forced tool call until one is known); null for local.
   */
  structuredOutput: StructuredOutputStep | null;
}

/** What a saved extraction records about what made it, and what status and dry runs name. */
export function extractorIdentity(settings: ExtractorSettings): ExtractorIdentity {
  if (settings.extractor === "anthropic") {
    return { extractor: "anthropic", model: settings.anthropic.model ?? DEFAULT_ANTHROPIC_MODEL, promptVersion: PROMPT_VERSION, structuredOutput: "tools" };
  }
  if (settings.extractor === "openai") {
    const { baseURL, model } = settings.openai!;
    return { extractor: "openai", model, promptVersion: PROMPT_VERSION, structuredOutput: rememberedStep(baseURL, model) ?? "tools" };
  }
  return { extractor: "local", model: null, promptVersion: LOCAL_EXTRACTOR_VERSION, structuredOutput: null };
}
