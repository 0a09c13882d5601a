// Temporary: the local-extractor part of scripts/bench/graph.ts (step 3), to compare two trees in one session.
import { buildCorpusStats, createLocalExtractor } from "./src/modules/graph/extractors/local";
import { draftNotes } from "./scripts/bench/graph-notes";
const N = Number(process.env.N ?? 10_000);
const drafts = draftNotes(N, 23);
const notes = drafts.map((d, i) => ({ id: i + 1, title: d.title, content: d.content, tags: d.tags }));
let at = performance.now();
const corpus = await buildCorpusStats(notes);
const corpusMs = performance.now() - at;
const ex = createLocalExtractor(corpus);
const known = new Set<string>(); const order: string[] = [];
at = performance.now();
for (const note of notes) {
  const e = await ex.extract(note, { existingConcepts: order.slice(-200) });
  for (const c of e.concepts) if (!known.has(c.name)) { known.add(c.name); order.push(c.name); }
}
const extractMs = performance.now() - at;
console.log(`${process.cwd()}: corpus ${corpusMs.toFixed(0)} ms, extract ${extractMs.toFixed(0)} ms, ${(N / ((corpusMs + extractMs) / 1000)).toFixed(0)} notes/s overall, ${(N / (extractMs / 1000)).toFixed(0)} extract alone`);
