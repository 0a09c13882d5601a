import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import { type NoteExtraction, type NoteForExtraction, noteText } from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../../../src/modules/graph/extractors/local";
import { createNlp } from "../../../../src/modules/graph/extractors/local/nlp";
import { resolveEntities } from "../../../../src/modules/graph/resolve-entities";
import { toStoredExtraction } from "../../../../src/modules/graph/stored-extraction";

const noContext = { existingConcepts: [] };
const note = (id: number, title: string, content: string, tags: string[] = []): NoteForExtraction => ({ id, title, content, tags });
const keys = (extraction: NoteExtraction) => extraction.concepts.map((concept) => conceptKey(concept.name));

async function extract(notes: NoteForExtraction[], index = 0): Promise<NoteExtraction> {
  return createLocalExtractor(buildCorpusStats(notes)).extract(notes[index]!, noContext);
}

/** The nodes a build of these notes makes, as label → note ids. */
async function graphOf(notes: NoteForExtraction[]): Promise<Map<string, number[]>> {
  const extractor = createLocalExtractor(buildCorpusStats(notes));
  const extractions = [];
  for (const item of notes) extractions.push({ noteId: item.id, extraction: toStoredExtraction(await extractor.extract(item, noContext), noteText(item)) });
  const nodes = resolveEntities(extractions).nodes;
  return new Map(nodes.flatMap((node) => [node.label, ...node.aliases].map((name) => [conceptKey(name), node.noteIds] as const)));
}

describe("local extractor: part of speech", () => {
  test("English concepts are nouns or noun phrases, never a bare verb, adjective, number or time", async () => {
    const result = keys(
      await extract([
        note(1, "Weekly sync", "We quickly compared three vector databases on Tuesday evening. The vector databases were slow but reliable; vector databases again.\n\nMaria evaluated 200 tickets."),
      ]),
    );
    // Named as written: no note of this corpus says "vector database" (issue 33: display text exactly as written).
    expect(result).toContain("vector databases");
    for (const word of ["compared", "quickly", "slow", "reliable", "evaluated", "200", "tuesday", "evening", "three"]) expect(result).not.toContain(word);
  });

  test("an English noun phrase is read across a soft line break and around Markdown emphasis", async () => {
    const content = "Today we fine-tuned a large language\nmodel on support tickets. The large language model is **large language models** in our notes.";
    const result = keys(await extract([note(1, "Fine-tuning", content)]));
    expect(result).toContain("large language model");
    expect(result).not.toContain("language\nmodel");
  });

  test("code blocks, inline code spans and URLs are not read as prose", async () => {
    const content = "Set up the vector index.\n\n```python\nimport numpy as np\nvectors = np.zeros(384)\n```\n\nSee https://example.com/tokenizer-guide for the vector index details.";
    const result = keys(await extract([note(1, "Search", content)]));
    expect(result).toContain("vector index");
    for (const word of ["numpy", "np", "vectors", "example", "tokenizer-guide", "https"]) expect(result).not.toContain(word);
  });
});

describe("local extractor: Chinese with jieba", () => {
  test("adjacent nouns join into one term, even where jieba tags the first as a verb (知识 + 图谱)", async () => {
    const notes = [
      note(1, "项目周会", "最近在做知识图谱，知识图谱的数据来源确定为内部文档。学习率太大会导致损失函数震荡，学习率太小则收敛很慢。"),
      note(2, "读书", "知识图谱和向量数据库可以结合。"),
    ];
    const result = keys(await extract(notes));
    expect(result).toEqual(expect.arrayContaining(["知识图谱", "学习率", "损失函数"]));
    for (const word of ["知识", "图谱", "最近", "确定", "震荡", "收敛"]) expect(result).not.toContain(word);
  });

  test("a Xiaohongshu post: topics are tags, emoji never stick to a concept, and chatter is not a concept", async () => {
    const content = "姐妹们！京都真的太出片了📸\n\nDay1 伏见稻荷大社 ⛩️ 一定要傍晚去，千本鸟居几乎没人～\n下午去宇治喝抹茶，抹茶苦中带甜🍵\n\n#京都旅行# #抹茶控#";
    const result = await extract([note(1, "京都三日游攻略✨", content)]);
    const found = keys(result);
    expect(result.concepts.find((concept) => concept.name === "京都旅行")?.type).toBe("tag");
    expect(found).toEqual(expect.arrayContaining(["京都", "抹茶"]));
    for (const name of found) expect(name).not.toMatch(/\p{Extended_Pictographic}/u);
    for (const word of ["姐妹们", "真的", "一定", "傍晚", "几乎", "下午"]) expect(found).not.toContain(word);
  });

  test("Japanese text gives katakana words and kanji compounds only, no kana fragments", async () => {
    const result = keys(await extract([note(1, "東京旅行", "東京の夜はとても綺麗でした。ラーメンを食べました。ラーメンが美味しかったです。")]));
    expect(result).toContain("ラーメン");
    for (const name of result) expect(name).not.toMatch(/[\p{Script=Hiragana}]/u);
  });
});

describe("local extractor: surface variants become aliases, so one node holds them", () => {
  test("acronym and expansion, singular and plural, across notes", async () => {
    const graph = await graphOf([
      note(1, "Evaluation", "We compared large language models (LLMs) on support tickets. The LLMs hallucinate."),
      note(2, "Retrieval", "An LLM answers from retrieved passages. Each LLM needs a vector database."),
      note(3, "Cost", "The price of a large language model is mostly inference. Vector databases are cheap."),
    ]);
    expect(graph.get("llm")).toEqual([1, 2, 3]);
    expect(graph.get("large language model")).toEqual([1, 2, 3]);
    expect(graph.get("vector databases")).toEqual([2, 3]);
  });

  test("a full name and the surname when the corpus knows one person by it", async () => {
    const graph = await graphOf([
      note(1, "Thinking, Fast and Slow", "Daniel Kahneman describes loss aversion. Kahneman also describes anchoring."),
      note(2, "Decisions", "Kahneman's loss aversion explains why we keep bad projects."),
    ]);
    expect(graph.get("daniel kahneman")).toEqual([1, 2]);
  });

  test("大语言模型（简称大模型）: a stated short name merges with the full one", async () => {
    const graph = await graphOf([
      note(1, "周会", "小李建议换成大语言模型（简称大模型）来做实体识别。"),
      note(2, "学习笔记", "大模型的核心是注意力机制。大模型的训练成本很高。"),
    ]);
    expect(graph.get("大语言模型")).toEqual([1, 2]);
  });
});

describe("local extractor: relations from reading order", () => {
  test("concepts in one sentence are labelled by the verb between them, in one paragraph 'related to'", async () => {
    const content = "The retrieval service uses a vector database for every query.\nThe vector database holds the embeddings on disk.\n\nKubernetes runs elsewhere.";
    const result = await extract([note(1, "Search design", content)]);
    const label = (a: string, b: string) =>
      result.relations.find((relation) => [conceptKey(relation.source), conceptKey(relation.target)].sort().join("|") === [a, b].sort().join("|"))?.label;
    expect(label("retrieval service", "vector database")).toBe("uses");
    expect(label("vector database", "embeddings")).toBe("holds");
    expect(label("retrieval service", "kubernetes")).toBeUndefined();
  });

  test("a Chinese verb with its aspect particle labels the relation (写了)", async () => {
    const result = await extract([note(1, "读书", "卡尼曼写了《思考，快与慢》这本书。赫拉利写了人类简史。\n\n马拉松训练很累。")]);
    expect(result.relations.some((relation) => relation.label === "写了")).toBe(true);
    // The other paragraph's concepts are not related to the first one's (马拉松训练 may relate within its own).
    const first = new Set(["卡尼曼", "赫拉利", "人类简史", "思考，快与慢"]);
    expect(result.relations.some((relation) => [relation.source, relation.target].includes("马拉松") && (first.has(relation.source) || first.has(relation.target)))).toBe(false);
  });
});

describe("local extractor: corpus statistics across builds", () => {
  test("a later build re-reads only new or changed notes, and counts the same", async () => {
    const notes = [
      note(1, "Corpus cache one", "The quorum protocol elects a leader. The quorum protocol keeps a log."),
      note(2, "Corpus cache two", "A quorum protocol needs three replicas."),
    ];
    const first = await buildCorpusStats(notes);
    expect(notes.every((item) => first.tags.has(item))).toBe(true);
    const edited = [{ ...notes[0]! }, { ...notes[1]!, content: "A quorum protocol needs five replicas." }];
    const second = await buildCorpusStats(edited);
    // Unchanged: its statistics are kept, nothing is tagged again; changed: read again.
    expect(second.tags.has(edited[0]!)).toBe(false);
    expect(second.tags.has(edited[1]!)).toBe(true);
    expect(second.documentFrequency.get("quorum protocol")).toBe(2);
    expect(keys(await createLocalExtractor(second).extract(edited[0]!, noContext))).toContain("quorum protocol");
  });
});

describe("local extractor: the English tagger's vocabulary", () => {
  test("words it learns are forgotten past the limit, and tagging is unchanged by the fresh start", async () => {
    const nlp = await createNlp({ vocabularyLimit: 500 });
    const sentence = "The gardener planted zorbleflax seeds in the garden.";
    const first = [...nlp.tagEnglish(sentence).values()];
    let most = 0;
    for (let batch = 0; batch < 12; batch++) {
      nlp.tagEnglish(Array.from({ length: 100 }, (_, at) => `qv${(batch * 100 + at).toString(36)}zk`).join(" "));
      most = Math.max(most, nlp.learntWords());
    }
    // 1,200 new words in reads of 100: never more than the limit and one read's worth held.
    expect(most).toBeGreaterThanOrEqual(400);
    expect(most).toBeLessThan(600);
    expect(nlp.learntWords()).toBeLessThan(500);
    expect([...nlp.tagEnglish(sentence).values()]).toEqual(first);
    expect(first.find((word) => sentence.slice(word.start, word.end) === "zorbleflax")?.rare).toBe(true);
    expect(first.find((word) => sentence.slice(word.start, word.end) === "garden")?.rare).toBe(false);
  });
});
