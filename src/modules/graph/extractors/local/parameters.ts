/**
 * The local extractor's tunable thresholds, in one place. The evaluation chooses them on training
 * folds only (tests/fixtures/graph-eval/cross-validate.ts); the defaults are fixed a priori (see
 * docs/knowledge-graph.md, "How the local extractor is evaluated"), never fitted to the labelled notes.
 */
export interface LocalParameters {
  /** Most key phrases a long note earns (a short one earns fewer, see `keyPhraseBudget`). */
  maxKeyPhrases: number;
  /** A note earns one more key phrase per this many characters of prose: a name said once in a long note needs a place. */
  phraseSpacing: number;
  /** How many characters of prose a Han character counts as, for the key-phrase budget (a Chinese word is one or two characters). */
  hanWidth: number;
  /** A key phrase scoring below this share of the note's best one is filler. */
  relativeFloor: number;
  /** An English word this common in general text (Zipf, see general-frequency.ts) is no concept alone, unless titled. */
  everydayZipf: number;
  /** A Chinese word this common in general text (below this jieba IDF) is no concept alone, unless titled. */
  everydayIdf: number;
  /** An English word at least this common (Zipf) counts one mention a note towards its node's weight, unless a name; a rarer one is specific (a recurring one ranks higher). */
  backgroundZipf: number;
  /** A Chinese word this common (below this jieba IDF) counts one mention a note towards its node's weight; a rarer one is specific. */
  backgroundIdf: number;
  /** A single common word the graph already has is cited by a note that writes it only while at most this many notes do. */
  knownWordMaxNotes: number;
  /**
   * A new word found across jieba's words (cjk-new-words.ts) is kept only when the note writes it at least this
   * share of the times it writes the rarer of its edge words: 过拟合 for 拟合, not 训练中 for 训练.
   */
  newWordCohesion: number;
}

export const DEFAULT_LOCAL_PARAMETERS: Readonly<LocalParameters> = Object.freeze({
  maxKeyPhrases: 24,
  phraseSpacing: 50,
  hanWidth: 5,
  relativeFloor: 0.1,
  everydayZipf: 3.5,
  everydayIdf: 6,
  backgroundZipf: 2,
  backgroundIdf: 10,
  knownWordMaxNotes: 3,
  newWordCohesion: 0.5,
});
