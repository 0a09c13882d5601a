import { beforeAll, describe, expect, test } from "bun:test";
import { createNote } from "../../../src/modules/notes/create-note";
import { searchNotes } from "../../../src/modules/search/search-notes";
import { parseQuery } from "../../../src/modules/search/parse-query";
import { searchExpressions } from "../../../src/modules/search/search-expression";
import { GAP, pairToken, pairTokens } from "../../../src/modules/search/word-pairs";
import { notesDatabaseForThisFile } from "../../support/notes-database";

// Quoted phrases are matched through the index's word pairs (word-pairs.ts): these are the cases
// where a pair index could go wrong and a phrase of positions would not.
const database = await notesDatabaseForThisFile();
const ids: Record<string, number> = {};

async function note(userId: number, name: string, input: { title: string; content: string; tags?: string[] }) {
  const created = await createNote({ ctx: { db: database.db, userId }, input: { tags: [], ...input } });
  ids[name] = created.id;
}

async function found(q: string, userId = 1): Promise<string[]> {
  const page = await searchNotes(database.db, { userId, q, page: 1, size: 50 });
  expect(page.total).toBe(page.noteIds.length);
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return page.noteIds.map((id) => names.get(id)!);
}

beforeAll(async () => {
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0), ('b', 'b', 'x', 0)");
  await note(1, "adjacent", { title: "Reading", content: "Working memory attention spans are short." });
  await note(1, "reversed", { title: "Reading", content: "Attention, memory: the other way round." });
  await note(1, "apart", { title: "Reading", content: "Memory needs attention." });
  await note(1, "chain", { title: "Reading", content: "memory attention span" });
  await note(1, "broken chain", { title: "Reading", content: "memory attention first; attention span later" });
  await note(1, "titled", { title: "Memory attention", content: "Notes from a lecture." });
  await note(1, "across", { title: "Notes on memory", content: "Attention comes later." });
  await note(1, "tagged", { title: "Untitled", content: "Nothing here.", tags: ["memory", "attention"] });
  await note(1, "chinese", { title: "读书", content: "知识图谱构建的方法，用 Redis 做缓存" });
  await note(1, "interrupted", { title: "Mixed", content: "deep learning 笔记 learning rate" });
  await note(2, "other user", { title: "Memory attention", content: "memory attention span" });
});

describe("a phrase matches its words in order, side by side, within one field", () => {
  test("two words: adjacent in body, title or across two tags; title and tag matches first", async () => {
    const matches = await found('"memory attention"');
    expect(matches.slice(0, 2).sort()).toEqual(["tagged", "titled"]);
    expect(matches.slice(2).sort()).toEqual(["adjacent", "broken chain", "chain"]);
  });

  test("three words need each pair in sequence, not each pair somewhere", async () => {
    expect(await found('"memory attention span"')).toEqual(["chain"]);
    expect(await found('"attention memory attention"')).toEqual([]);
  });

  test("punctuation between the words does not break a phrase; order does", async () => {
    expect(await found('"attention memory"')).toEqual(["reversed"]);
    expect(await found('"needs attention"')).toEqual(["apart"]);
  });

  test("a phrase ending in a prefix, a phrase excluded, a phrase with a word", async () => {
    expect((await found('"memory atten"*')).sort()).toEqual(["adjacent", "broken chain", "chain", "tagged", "titled"].sort());
    expect((await found('memory -"memory attention"')).sort()).toEqual(["across", "apart", "reversed"]);
    expect((await found('"memory attention" span')).sort()).toEqual(["broken chain", "chain"]);
  });

  test("a Chinese phrase and English written against it", async () => {
    expect(await found('"知识图谱构建"')).toEqual(["chinese"]);
    expect(await found('"做缓存"')).toEqual(["chinese"]);
    expect(await found('"redis 做缓存"')).toEqual(["chinese"]);
    expect(await found('"图谱 知识"')).toEqual([]);
    // Chinese between two runs of words: the runs' pairs are not adjacent.
    expect(await found('"deep learning rate"')).toEqual([]);
    expect(await found('"learning rate"')).toEqual(["interrupted"]);
    expect(await found('"learning 笔记 learning"')).toEqual(["interrupted"]);
  });

  test("another user's identical text is never found", async () => {
    expect(await found('"memory attention span"', 2)).toEqual(["other user"]);
    expect(await found('"memory attention span"', 1)).toEqual(["chain"]);
  });

  test("edits and deletes reach the pairs", async () => {
    await database.client.execute({ sql: "update notes set content = 'attention memory' where id = ?", args: [ids.chain!] });
    expect(await found('"memory attention span"')).toEqual([]);
    await database.client.execute({ sql: "delete from notes where id = ?", args: [ids.adjacent!] });
    expect(await found('"working memory"')).toEqual([]);
  });
});

test("a pair token is six ideographs, per owner and order, and deterministic", () => {
  const token = pairToken("00000001", "memory", "attention");
  expect(token).toMatch(/^[\u4e00-\u55ff]{6}$/u);
  expect(pairToken("00000001", "memory", "attention")).toBe(token);
  expect(pairToken("00000002", "memory", "attention")).not.toBe(token);
  expect(pairToken("00000001", "attention", "memory")).not.toBe(token);
  // The separator keeps word boundaries: "ab"+"c" is not "a"+"bc".
  expect(pairToken("00000001", "ab", "c")).not.toBe(pairToken("00000001", "a", "bc"));
  expect(pairTokens("00000001", ["a", "b", "c"])).toEqual([pairToken("00000001", "a", "b"), pairToken("00000001", "b", "c")]);
  // The same text held as Latin-1 or as UTF-16 in memory (sliced from a string with CJK in it).
  expect(pairToken("00000001", "caf\u00f8", "x")).toBe(pairToken("00000001", "caf\u00f8\u56fe".slice(0, 4), "x"));
});

test("pairs of CJK tokens are left to the bigrams; a run of words broken by them gets a gap", () => {
  const owner = "00000001";
  expect(pairTokens(owner, ["a", "b", "笔记", "记", "b", "c"])).toEqual([pairToken(owner, "a", "b"), GAP, pairToken(owner, "b", "c")]);
  expect(pairTokens(owner, ["知识", "识", "a", "b"])).toEqual([pairToken(owner, "a", "b")]);
});

test("a phrase of whole words is searched as its pairs; a word or a prefix phrase as words", () => {
  const expression = (q: string) => searchExpressions(parseQuery(q), { userId: 1 }).all;
  const pairs = pairTokens("00000001", ["memory", "attention", "span"]).join(" ");
  expect(expression('"memory attention span"')).toBe(`"${pairs}"`);
  expect(expression("memory")).toBe('"00000001memory"');
  expect(expression('"memory atten"*')).toBe('"00000001memory 00000001atten"*');
});
