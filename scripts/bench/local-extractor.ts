// `bun run scripts/bench/local-extractor.ts`: the local extractor in-process, on an idle machine.
//   1. each hostile note of tests/fixtures/notes/hostile-notes.ts (about 1 MiB each): seconds per MiB
//      (target ≤ 5 s/MiB: a quadratic path would take minutes);
//   2. throughput on 2,000 generated notes (notes/s, printed);
//   3. throughput on 10,000 notes of bench:graph's generator, corpus statistics included, called as a
//      build calls it (each note with the last 200 names found so far): target ≥ 300 notes/s.
import { noteText, type NoteForExtraction } from "../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../src/modules/graph/extractors/local";
import { hostileNotes, MIB } from "../../tests/fixtures/notes/hostile-notes";
import { loadSampleNotes } from "../../tests/fixtures/notes/load-note";
import { draftNotes } from "./graph-notes";

const TARGET_SECONDS_PER_MIB = 5;
const TARGET_NOTES_PER_SECOND = 300;
const THROUGHPUT_NOTES = 2_000;
const noContext = { existingConcepts: [] };

const samples = loadSampleNotes();
const extractor = createLocalExtractor(await buildCorpusStats(samples));
let failed = 0;
for (const { name, note } of hostileNotes()) {
  const started = performance.now();
  await extractor.extract(note, noContext);
  const seconds = (performance.now() - started) / 1000;
  const perMib = seconds / Math.max(noteText(note).length / MIB, 1 / 1024);
  const pass = perMib <= TARGET_SECONDS_PER_MIB;
  if (!pass) failed++;
  console.log(`${pass ? "PASS" : "FAIL"}  ${name.padEnd(32)} ${seconds.toFixed(2)} s  (${perMib.toFixed(2)} s/MiB, target ≤ ${TARGET_SECONDS_PER_MIB})`);
}

const notes = Array.from({ length: THROUGHPUT_NOTES }, (_, index): NoteForExtraction => {
  const base = samples[index % samples.length]!;
  const extra = `\n\nNote ${index}: follow up on topic${index % 53} with project${index % 17}. 回顾第${index % 7}周的进展。`;
  return { ...base, id: index, content: base.content.repeat(1 + (index % 2)) + extra };
});
const characters = notes.reduce((sum, note) => sum + note.content.length, 0);
const started = performance.now();
const local = createLocalExtractor(await buildCorpusStats(notes));
const corpusSeconds = (performance.now() - started) / 1000;
let concepts = 0;
for (const note of notes) concepts += (await local.extract(note, noContext)).concepts.length;
const seconds = (performance.now() - started) / 1000;
console.log(
  `throughput: ${notes.length} notes (${(characters / notes.length / 1024).toFixed(1)} KiB avg) in ${seconds.toFixed(2)} s ` +
    `(corpus ${corpusSeconds.toFixed(2)} s), ${(notes.length / seconds).toFixed(0)} notes/s, ${(concepts / notes.length).toFixed(1)} concepts/note`,
);

const drafts = draftNotes(10_000, 23).map((draft, index): NoteForExtraction => ({ id: index + 1, title: draft.title, content: draft.content, tags: draft.tags }));
const at = performance.now();
const corpus = await buildCorpusStats(drafts);
const corpusMs = performance.now() - at;
const extractor10k = createLocalExtractor(corpus);
const order: string[] = [];
const known = new Set<string>();
for (const note of drafts) {
  const extraction = await extractor10k.extract(note, { existingConcepts: order.slice(-200) });
  for (const { name } of extraction.concepts) if (!known.has(name)) (known.add(name), order.push(name));
}
const totalMs = performance.now() - at;
const rate = drafts.length / (totalMs / 1000);
if (rate < TARGET_NOTES_PER_SECOND) failed++;
console.log(
  `${rate >= TARGET_NOTES_PER_SECOND ? "PASS" : "FAIL"}  10,000 notes, corpus statistics ${(corpusMs / 1000).toFixed(1)} s + extraction ` +
    `${((totalMs - corpusMs) / 1000).toFixed(1)} s: ${rate.toFixed(0)} notes/s (target ≥ ${TARGET_NOTES_PER_SECOND})`,
);
process.exit(failed > 0 ? 1 : 0);
