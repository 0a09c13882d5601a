import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEmbeddingsClient } from "../../../src/modules/llm/providers/openai-embeddings";
import { embedUserNotes } from "../../../src/modules/semantic/embed-user-notes";
import { mergeSuggestions } from "../../../src/modules/semantic/merge-suggestions";
import { relatedNotes } from "../../../src/modules/semantic/related-notes";
import { findSpace } from "../../../src/modules/semantic/space";
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

describe("merge suggestions judge the labels alone", () => {
  // As the local extractor writes them: each concept's description is the sentence that first mentions it.
  const rain = "A downpour in Kyoto: the forecast promised sun, so I had no umbrella.";
  const vet = "小猫今天打了第一针疫苗。";
  const nap = "The kitten slept all afternoon by the window.";
  const biases = "Loss aversion: a loss hurts more than a win pleases.";
  const zh = "损失厌恶是指人们对损失更敏感。";
  let carol: number;
  beforeAll(async () => {
    carol = await insertUser(notes.db, "carol-suggest");
    const noteIds = [];
    for (const content of [rain, vet, nap, biases, zh]) noteIds.push(await insertNote(notes.db, carol, { title: content.slice(0, 12), content }));
    await writeGraph(notes.db, carol, {
      nodes: [
        ...["downpour", "Kyoto", "forecast", "umbrella"].map((label) => ({ label, description: rain })),
        ...["小猫", "疫苗"].map((label) => ({ label, description: vet })),
        { label: "Kitten", description: nap },
        { label: "afternoon", description: nap },
        { label: "Loss aversion", description: biases },
        { label: "损失厌恶", description: zh },
      ],
    });
    await embedUserNotes({ db: notes.db, client }, carol);
  });

  test("one concept named in two languages is suggested; concepts that merely share a sentence are not", async () => {
    const { items } = await mergeSuggestions({ ctx: { db: notes.db, userId: carol, semantic }, input: { limit: 20 } });
    const pairs = items.map((item) => item.nodes.map((node) => node.label).sort().join(" + "));
    expect(pairs.slice(0, 2).sort()).toEqual(["Kitten + 小猫", "Loss aversion + 损失厌恶"]);
    for (const together of ["Kyoto + downpour", "forecast + umbrella", "Kyoto + umbrella", "小猫 + 疫苗", "Kitten + afternoon"]) expect(pairs).not.toContain(together);
    expect(pairs).toHaveLength(2);
  });

  test("each concept is embedded by its label alone too, beside its label and description", async () => {
    const texts = server.embedded();
    expect(texts).toContain("Kyoto");
    expect(texts).toContain(`Kyoto: ${rain}`);
  });

  test("concepts embedded before label vectors existed gain them at the next embedding run, found by the sweep", async () => {
    const space = (await findSpace(notes.db, client.settings))!;
    await notes.client.execute({ sql: `delete from ${space.table} where user_id = ? and kind = 'label'`, args: [carol] });
    expect((await mergeSuggestions({ ctx: { db: notes.db, userId: carol, semantic }, input: { limit: 20 } })).items).toEqual([]);
    expect(await usersToEmbed(notes.db, client.settings)).toContain(carol);
    const before = server.embedded().length;
    await embedUserNotes({ db: notes.db, client }, carol);
    // Only the labels are asked for: the label-and-description vectors stay as they were.
    expect(server.embedded().slice(before).sort()).toEqual(["downpour", "Kyoto", "forecast", "umbrella", "小猫", "疫苗", "Kitten", "afternoon", "Loss aversion", "损失厌恶"].sort());
    expect(await usersToEmbed(notes.db, client.settings)).not.toContain(carol);
    expect((await mergeSuggestions({ ctx: { db: notes.db, userId: carol, semantic }, input: { limit: 20 } })).items).toHaveLength(2);
  });
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
