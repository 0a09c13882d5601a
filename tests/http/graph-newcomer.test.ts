import { beforeAll, describe, expect, test } from "bun:test";
import { conceptKey } from "../../src/modules/graph/concept-key";
import { NEWCOMER_NOTES } from "../fixtures/graph-newcomer/notes";
import { awaitBuild } from "../support/await-build";
import { serverForThisFile } from "../support/server";

// Issue 33's newcomer trial, through the API with the local extractor: the ten notes of
// tests/fixtures/graph-newcomer, one full build, the whole graph read back as a user sees it.

interface Node {
  id: number;
  label: string;
  aliases: string[];
  description: string;
  weight: number;
  note_ids: number[];
}
interface Edge {
  source: number;
  target: number;
  label: string;
  note_ids: number[];
}

const { api } = await serverForThisFile();
let nodes: Node[];
let edges: Edge[];

beforeAll(async () => {
  const { api: user } = await api.newUser("newcomer");
  for (const note of NEWCOMER_NOTES) expect((await user.post("/api/notes", note)).status).toBe(201);
  expect((await user.post("/api/knowledge-graph/build", { mode: "full" })).status).toBe(202);
  const { status } = await awaitBuild(user, { timeoutMs: 50_000 });
  expect(status.status).toBe("completed");
  const graph = (await user.get("/api/knowledge-graph?limit=5000")).body;
  nodes = graph.nodes;
  edges = graph.edges;
});

const written = NEWCOMER_NOTES.map((note) => [note.title, note.content, ...note.tags].join("\n"));
const nodeNamed = (name: string) => nodes.filter((node) => [node.label, ...node.aliases].some((known) => conceptKey(known) === conceptKey(name)));
const heaviest = (count: number) => [...nodes].sort((a, b) => b.weight - a.weight).slice(0, count);

/** Whole words (Latin) or anywhere (CJK), ignoring case: how a reader finds a name in the notes. */
function occurs(name: string): boolean {
  const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "u");
  return written.some((text) => (/\p{Script=Han}/u.test(name) ? text.includes(name) : pattern.test(text.toLowerCase())));
}

describe("the local graph of a newcomer's ten notes", () => {
  test("every alias is a form some note writes: no invented plural (hangzhous, Loss aversions, algaes)", () => {
    const invented = nodes.flatMap((node) => node.aliases.filter((alias) => !occurs(alias)).map((alias) => `${node.label} ← ${alias}`));
    expect(invented).toEqual([]);
    expect(nodeNamed("hangzhou")).toHaveLength(1);
    expect(nodeNamed("algae")).toHaveLength(1);
    expect(nodeNamed("loss aversion")).toHaveLength(1);
  });

  test("a generic word is not merged into a concept, nor a concept of its own (Theory, theories)", () => {
    const prospect = nodeNamed("prospect theory");
    expect(prospect).toHaveLength(1);
    expect(prospect[0]!.aliases.map(conceptKey)).not.toContain("theory");
    expect(prospect[0]!.aliases.map(conceptKey)).not.toContain("theories");
    expect(nodeNamed("theory")).toEqual([]);
    expect(nodeNamed("Lake").filter((node) => conceptKey(node.label) === "west lake")).toEqual([]);
  });

  test("a bare head word (System, 系统) is no node; the names it heads are", () => {
    expect(nodeNamed("System")).toEqual([]);
    expect(nodeNamed("系统")).toEqual([]);
    expect(nodeNamed("System 1")).toHaveLength(1);
    expect(nodeNamed("System 2")).toHaveLength(1);
    expect(nodeNamed("系统1")).toHaveLength(1);
    expect(heaviest(10).map((node) => node.label)).not.toContain("system");
  });

  test("a heading's plural is the same node as the singular in prose (Transformers, Transformer)", () => {
    const transformer = nodeNamed("Transformer");
    expect(transformer).toHaveLength(1);
    expect(nodeNamed("Transformers")).toEqual(transformer);
  });

  test("a modified noun keeps its modifier: mental accounting, not accounting", () => {
    expect(nodeNamed("mental accounting")).toHaveLength(1);
    expect(nodeNamed("accounting")).toEqual([]);
  });

  test("a person is linked to the theory a note says they developed", () => {
    const [kahneman] = nodeNamed("Kahneman");
    const [prospect] = nodeNamed("prospect theory");
    expect(kahneman).toBeDefined();
    const joined = edges.filter(
      (edge) => (edge.source === kahneman!.id && edge.target === prospect!.id) || (edge.source === prospect!.id && edge.target === kahneman!.id),
    );
    expect(joined).toHaveLength(1);
    expect(joined[0]!.note_ids.length).toBeGreaterThanOrEqual(1);
  });

  test("display text is exactly as written: Chinese descriptions keep full-width punctuation (NFKC is for keys only)", () => {
    const chinese = nodes.filter((node) => /\p{Script=Han}/u.test(node.description));
    expect(chinese.length).toBeGreaterThan(0);
    for (const node of chinese) expect(written.some((text) => text.includes(node.description.replace(/…$/, "")))).toBe(true);
    const [prospect] = nodeNamed("前景理论");
    expect(prospect!.description).toContain("（Daniel Kahneman）");
    expect(prospect!.description).toContain("：");
    expect(prospect!.description).not.toContain("(Daniel Kahneman)");
  });
});
