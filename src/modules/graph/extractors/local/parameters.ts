/**
 * The local extractor's tunable thresholds, in one place. The evaluation chooses them on training
 * folds only (tests/fixtures/graph-eval/cross-validate.ts); the defaults are fixed a priori (see
 * docs/knowledge-graph.md, "How the local extractor is evaluated"), never fitted to the labelled notes.
 */
export interface LocalParameters {
  /** Most key phrases a long note earns (a short one earns fewer, see `keyPhraseBudget`). */
  maxKeyPhrases: number;
  /** A key phrase scoring below this share of the note's best one is filler. */
  relativeFloor: number;
}

export const DEFAULT_LOCAL_PARAMETERS: Readonly<LocalParameters> = Object.freeze({
  maxKeyPhrases: 18,
  relativeFloor: 0.1,
});
