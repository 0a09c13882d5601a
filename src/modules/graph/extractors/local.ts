import { conceptKey } from "../concept-key";
import type { Extractor } from "../extraction";
import type { CorpusStats } from "./local/corpus";
import { extractNote } from "./local/extract-note";

export { buildCorpusStats, type CorpusStats } from "./local/corpus";
export { LOCAL_CONCEPT_TYPES, type LocalConceptType } from "./local/explicit-concepts";

/**
 * The extractor that needs no network or model: explicit Markdown structure (tags, #hashtags,
 * [[links]], headings, emphasis, inline code) plus TF-IDF key phrases against the user's notes,
 * related by co-occurrence in a section. Deterministic: the same note and corpus give the same result.
 */
export function createLocalExtractor(corpus: CorpusStats): Extractor {
  const existingByList = new WeakMap<readonly string[], ReadonlyMap<string, string>>();
  return {
    name: "local",
    async extract(note, context) {
      context.signal?.throwIfAborted();
      let existing = existingByList.get(context.existingConcepts);
      if (!existing) {
        existing = existingNamesByKey(context.existingConcepts);
        existingByList.set(context.existingConcepts, existing);
      }
      return extractNote(note, corpus, existing);
    },
  };
}

/** The user's existing concept names by key (first spelling wins), so matching phrases reuse them. */
function existingNamesByKey(names: readonly string[]): ReadonlyMap<string, string> {
  const byKey = new Map<string, string>();
  for (const name of names) {
    const key = conceptKey(name);
    if (key.length > 0 && !byKey.has(key)) byKey.set(key, name);
  }
  return byKey;
}
