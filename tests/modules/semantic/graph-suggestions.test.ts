import { afterAll, beforeAll, expect, test } from "bun:test";
import { createEmbeddingsClient } from "../../../src/modules/llm/providers/openai-embeddings";
import { embedUserNotes } from "../../../src/modules/semantic/embed-user-notes";
import { mergeSuggestions } from "../../../src/modules/semantic/merge-suggestions";
import { relatedNotes } from "../../../src/modules/semantic/related-notes";
import { startFakeEmbeddings } from "../../support/fake-embeddings";
import { usersToEmbed } from "../../../src/modules/semantic/sweep";
import { insertNote, insertUser, writeGraph } from "../../support/graph-seed";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const server = startFakeEmbeddings({ dimensions: 48 });
afterAll(() => server.stop());
const notes = await notesDatabaseForThisFile();
const client = createEmbeddingsClient({ baseURL: server.url, model: "fake-embed", batchSize: 16, maxRetries: 0 });
const semantic = { client };

let alice: number;
let bob: number;
let ids: Map<string, number>;
let noteA: number;
let noteB: number;
let noteC: number;

beforeAll(async () => {
  alice = await insertUser(notes.db, "alice-suggest");
  bob = await insertUser(notes.db, "bob-suggest");
  noteA = await insertNote(notes.db, alice, { title: "Biases", content: "Loss aversion: a loss hurts more than a win pleases." });
  noteB = await insertNote(notes.db, alice, { title: "行为经济学", content: "损失厌恶是指人们对损失更敏感。" });
  noteC = await insertNote(notes.db, alice, { title: "Garden", content: "Tomatoes along the fence." });
  ids = await writeGraph(notes.db, alice, {
    nodes: [
      { label: "Loss aversion", description: "" },
      { label: "损失厌恶", description: "" },
      { label: "Garden", description: "" },
      { label: "Hidden loss", description: "" },
    ],
    mentions: [
      { node: "Loss aversion", noteId: noteA, start: 0, passage: "Loss aversion" },
      { node: "Loss aversion", noteId: noteC, start: 0, passage: "Loss aversion" },
      { node: "Garden", noteId: noteC, start: 0, passage: "Garden" },
    ],
  });
  await notes.client.execute({ sql: "update graph_nodes set hidden = 1 where id = ?", args: [ids.get("Hidden loss")!] });
  await writeGraph(notes.db, bob, { nodes: [{ label: "Loss aversion (Bob)", description: "" }, { label: "损失厌恶 Bob", description: "" }] });
  await embedUserNotes({ db: notes.db, client }, alice);
  await embedUserNotes({ db: notes.db, client }, bob);
});

test("merge suggestions pair concepts whose labels differ but whose meanings match, across languages; hidden and others' concepts stay out", async () => {
  const { items } = await mergeSuggestions({ ctx: { db: notes.db, userId: alice, semantic }, input: { limit: 10 } });
  expect(items.length).toBeGreaterThan(0);
  const labels = items[0]!.nodes.map((node) => node.label).sort();
  expect(labels).toEqual(["Loss aversion", "损失厌恶"]);
  const every = items.flatMap((item) => item.nodes.map((node) => node.label));
  expect(every).not.toContain("Hidden loss");
  expect(every).not.toContain("Garden");
  expect(every.some((label) => label.includes("Bob"))).toBe(false);
});

test("without embeddings there are no suggestions, and related notes come from shared concepts", async () => {
  expect((await mergeSuggestions({ ctx: { db: notes.db, userId: alice }, input: { limit: 10 } })).items).toEqual([]);
  const related = await relatedNotes({ ctx: { db: notes.db, userId: alice }, input: { id: noteA, limit: 10 } });
  expect(related.items.map((item) => item.id)).toEqual([noteC]);
});

test("related notes by meaning find the note in the other language, never the note itself", async () => {
  const related = await relatedNotes({ ctx: { db: notes.db, userId: alice, semantic }, input: { id: noteA, limit: 10 } });
  expect(related.items[0]!.id).toBe(noteB);
  expect(related.items.map((item) => item.id)).not.toContain(noteA);
  await expect(relatedNotes({ ctx: { db: notes.db, userId: bob, semantic }, input: { id: noteA, limit: 10 } })).rejects.toThrow("not found");
});

test("the sweep finds a user whose graph gained concepts since the last embedding run", async () => {
  expect(await usersToEmbed(notes.db, client.settings)).not.toContain(alice);
  await writeGraph(notes.db, alice, { nodes: [{ label: "Anchoring", description: "" }] });
  expect(await usersToEmbed(notes.db, client.settings)).toContain(alice);
  await embedUserNotes({ db: notes.db, client }, alice);
  expect(await usersToEmbed(notes.db, client.settings)).not.toContain(alice);
});
