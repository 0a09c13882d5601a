import { describe, expect, test } from "bun:test";
import { buildLocalGraph } from "../../../fixtures/graph-eval/local-graph";
import { LANGUAGES, loadEvalSet, scoreGraph } from "../../../fixtures/graph-eval/score";

// The figures the local extractor reaches on tests/fixtures/graph-eval (deterministic), as a floor:
// issue 33's targets are recall ≥ 0.75 per language, precision@30 ≥ 0.75, no junk, merged ≥ 0.75, and
// ≥ 0.9 of the concept pairs sharing a paragraph in two or more notes joined by an edge (not all met
// yet); a change may raise these, never lower them.
// Recorded after issue 33's second pass: en 0.757, zh 0.736, precision@30 0.767, junk 0, merged 0.727, related 0.875.
const FLOOR = { recall: { en: 0.75, zh: 0.73 }, precisionAt30: 0.76, maxJunk: 0, merge: 0.72, related: 0.87 };

describe("local extractor: quality on the evaluation set", () => {
  test("recall, precision of the heaviest nodes, junk, merging and paragraph relations stay at or above the recorded figures", async () => {
    const set = loadEvalSet();
    const graph = await buildLocalGraph(set);
    const score = scoreGraph(set, graph.nodes, graph.edges);
    for (const language of LANGUAGES) expect(score.recall[language]).toBeGreaterThanOrEqual(FLOOR.recall[language]);
    expect(score.precisionAt30).toBeGreaterThanOrEqual(FLOOR.precisionAt30);
    expect(score.junk.length).toBeLessThanOrEqual(FLOOR.maxJunk);
    expect(score.merge).toBeGreaterThanOrEqual(FLOOR.merge);
    expect(score.related).toBeGreaterThanOrEqual(FLOOR.related);
  });
});
