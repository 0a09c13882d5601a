import { conceptKey } from "../concept-key";
import type { Extractor } from "../extraction";
import type { CorpusStats } from "./local/corpus";
import { extractNote } from "./local/extract-note";
import { DEFAULT_LOCAL_PARAMETERS, type LocalParameters } from "./local/parameters";

export { buildCorpusStats, type CorpusStats } from "./local/corpus";
export { LOCAL_CONCEPT_TYPES, type LocalConceptType } from "./local/explicit-concepts";
export { DEFAULT_LOCAL_PARAMETERS, type LocalParameters } from "./local/parameters";

/**
 * The extractor that needs no network or model download: explicit Markdown structure (tags, #hashtags,
 * [[links]], headings, emphasis, inline code) plus TF-IDF noun phrases against the user's notes (English
 * tagged by wink-nlp, Chinese segmented and tagged by jieba, both loaded by the first build), related by
 * co-occurrence. Deterministic: the same note and corpus give the same result.
 */
export function createLocalExtractor(
  corpusStats: CorpusStats | Promise<CorpusStats>,
  parameters: Readonly<LocalParameters> = DEFAULT_LOCAL_PARAMETERS,
): Extractor {
  const corpusReady = Promise.resolve(corpusStats);
  // Awaited by the first extraction; a failure to load surfaces there, not as an unhandled rejection.
  corpusReady.catch(() => {});
  // A build passes one list that only grows at its end, so each call indexes only the names added since.
  const indexed = new WeakMap<readonly string[], { byKey: Map<string, string>; count: number }>();
  return {
    name: "local",
    async extract(note, context) {
      context.signal?.throwIfAborted();
      const corpus = await corpusReady;
      const names = context.existingConcepts;
      let index = indexed.get(names);
      if (!index) indexed.set(names, (index = { byKey: new Map(), count: 0 }));
      for (; index.count < names.length; index.count++) addExistingName(index.byKey, names[index.count]!);
      return extractNote(note, corpus, index.byKey, parameters);
    },
  };
}

/** The user's existing concept names by key (first spelling wins), so matching phrases reuse them. */
function addExistingName(byKey: Map<string, string>, name: string): void {
  const key = conceptKey(name);
  if (key.length > 0 && !byKey.has(key)) byKey.set(key, name);
}
