import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../src/modules/graph/concept-key";
import { noteText, type NoteForExtraction } from "../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../../src/modules/graph/extractors/local";
import { onePerPair } from "../../../src/modules/graph/get-graph";
import { resolveEntities } from "../../../src/modules/graph/resolve-entities";
import { toStoredExtraction } from "../../../src/modules/graph/stored-extraction";

// A newcomer's four short notes, each linking [[Photosynthesis]] and [[Sunlight]] in one paragraph.
const notes: NoteForExtraction[] = [
  {
    id: 1,
    title: "Leaves",
    tags: [],
    content: "[[Photosynthesis]] depends on [[Chlorophyll]], which catches [[Sunlight]] in the leaf.\n\nDeciduous trees pause in winter.",
  },
  {
    id: 2,
    title: "Autumn colours",
    tags: [],
    content: "In autumn the leaves break down [[Chlorophyll]]. Less [[Sunlight]] means less [[Photosynthesis]], and the yellow pigments show.",
  },
  {
    id: 3,
    title: "Energy in plants",
    tags: [],
    content: "[[Sunlight]] powers [[Photosynthesis]]. Plants store the energy as sugar.\n\nA dense canopy shades the forest floor.",
  },
  {
    id: 4,
    title: "Greenhouse notes",
    tags: [],
    content: "Grow lights stand in for [[Sunlight]] so that [[Photosynthesis]] goes on through the winter, with [[Chlorophyll]] doing the work.",
  },
];

async function buildGraph() {
  const extractor = createLocalExtractor(await buildCorpusStats(notes));
  const extractions = [];
  for (const note of notes) {
    extractions.push({ noteId: note.id, extraction: toStoredExtraction(await extractor.extract(note, { existingConcepts: [] }), noteText(note)) });
  }
  const { nodes, edges } = resolveEntities(extractions);
  const shown = onePerPair(
    edges.map((edge, index) => ({ id: index + 1, source: edge.source, target: edge.target, label: edge.label, weight: edge.weight, note_ids: edge.noteIds })),
  );
  return { nodes, edges: shown };
}

describe("local graph: relations a reader expects", () => {
  test("concepts linked in one paragraph of four notes are one edge citing all four; one edge per pair", async () => {
    const { nodes, edges } = await buildGraph();
    const index = (name: string) => nodes.findIndex((node) => node.keys.includes(conceptKey(name)));
    const between = (a: string, b: string) =>
      edges.filter((edge) => (edge.source === index(a) && edge.target === index(b)) || (edge.source === index(b) && edge.target === index(a)));

    const sunlight = between("Photosynthesis", "Sunlight");
    expect(sunlight).toHaveLength(1);
    expect(sunlight[0]!.note_ids).toEqual([1, 2, 3, 4]);
    expect(sunlight[0]!.weight).toBe(4);

    const chlorophyll = between("Photosynthesis", "Chlorophyll");
    expect(chlorophyll).toHaveLength(1);
    expect(chlorophyll[0]!.label).toBe("depends");
    expect(chlorophyll[0]!.note_ids).toEqual([1, 2, 4]);
  });

  test("a title that names nothing the notes name is not a node", async () => {
    const { nodes } = await buildGraph();
    expect(nodes.map((node) => node.label.toLowerCase())).not.toContain("autumn colours");
  });
});
