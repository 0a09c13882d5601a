import { describe, expect, test } from "bun:test";
import { crossValidate } from "../../../fixtures/graph-eval/cross-validate";
import { LANGUAGES, loadEvalSet } from "../../../fixtures/graph-eval/score";

// The local extractor's cross-validated figures on tests/fixtures/graph-eval (all files, 5 folds by topic;
// deterministic), as floors: the mean over the held-out folds, with the parameters the training folds
// chose and with the shipped defaults. Issue 46's targets (recall ≥ 0.75 per language, precision@30 ≥ 0.75,
// no junk among the 30 heaviest nodes, merged ≥ 0.75, related ≥ 0.9) were not all met at first: recorded at
// tuned en 0.65, zh 0.61, p@30 0.74, junk 0.4 a fold, merged 0.59, related 0.70 (defaults: 0.65, 0.61,
// 0.73, 0.4, 0.60, 0.70; related became 0.69 once Latin forms written against Chinese, such as
// M87星系, counted as written). Then the English round (gerunds, list and table heads located, Title Case works,
// one key phrase per 50 characters) and the Chinese round (time words like 唐朝 and runs of single characters
// like 深/a 蹲/v as candidates that must recur) together: tuned 0.74, 0.71, 0.75, 0.4, 0.67, 0.77 (defaults:
// 0.74, 0.71, 0.72, 0.4, 0.67, 0.77). Then a single dictionary word counting one mention a note towards its
// node's weight, a concept's other names' occurrences counted as its own, and known names a note writes cited:
// tuned 0.75, 0.71, 0.88, 0.2, 0.72, 0.76 (defaults: 0.74, 0.71, 0.86, 0.2, 0.71, 0.78). Then repeated word
// strings, names no note writes in lower case, titles split at coordinators, Chinese new-word discovery, a Han
// character as five characters of prose, and the grid search counting a junk node as a whole figure (every fold
// then chooses the defaults) and a paragraph pairing its first fifteen concepts: 0.83, 0.79, 0.85, 0.2, 0.82, 0.93,
// tuned and defaults alike; and a common English word said once no key phrase: 0.82, 0.78, 0.87, 0, 0.81, 0.92,
// every target met; and a phrase around a chosen one kept only where it recurs ("plants store" around "plants"),
// as before the round: 0.80, 0.77, 0.87, 0, 0.81, 0.92 (defaults: merged 0.82). A change may raise these, never
// lower them.
const FLOOR = { recall: { en: 0.79, zh: 0.76 }, precisionAt30: 0.86, maxJunk: 0, merge: 0.8, related: 0.91 };

describe("local extractor: cross-validated quality on the evaluation notes", () => {
  test("the held-out folds' mean recall, precision of the heaviest nodes, junk, merging and relations stay at or above the recorded figures", async () => {
    const result = await crossValidate(loadEvalSet("all"));
    for (const figures of [result.tuned.mean, result.defaults.mean]) {
      for (const language of LANGUAGES) expect(figures.recall[language]).toBeGreaterThanOrEqual(FLOOR.recall[language]);
      expect(figures.precisionAt30).toBeGreaterThanOrEqual(FLOOR.precisionAt30);
      expect(figures.junk).toBeLessThanOrEqual(FLOOR.maxJunk);
      expect(figures.merge).toBeGreaterThanOrEqual(FLOOR.merge);
      expect(figures.related).toBeGreaterThanOrEqual(FLOOR.related);
    }
  }, 900_000);
});
