import { describe, expect, test } from "bun:test";
import { buildLocalGraph } from "../../../fixtures/graph-eval/local-graph";
import { LANGUAGES, loadEvalSet, scoreGraph } from "../../../fixtures/graph-eval/score";

// The figures the local extractor reaches on tests/fixtures/graph-eval (deterministic), as a floor:
// the targets are recall ≥ 0.7 per language, precision@30 ≥ 0.7, no junk, merged ≥ 0.7;
// a change may raise these, never lower them.
const FLOOR = { recall: { en: 0.73, zh: 0.7 }, precisionAt30: 0.76, maxJunk: 0, merge: 0.72 };

describe("local extractor: quality on the evaluation set", () => {
  test("recall, precision of the heaviest nodes, junk and merging stay at or above the recorded figures", async () => {
    const set = loadEvalSet();
    const score = scoreGraph(set, await buildLocalGraph(set));
    for (const language of LANGUAGES) expect(score.recall[language]).toBeGreaterThanOrEqual(FLOOR.recall[language]);
    expect(score.precisionAt30).toBeGreaterThanOrEqual(FLOOR.precisionAt30);
    expect(score.junk.length).toBeLessThanOrEqual(FLOOR.maxJunk);
    expect(score.merge).toBeGreaterThanOrEqual(FLOOR.merge);
  });
});
