import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import { type NoteExtraction, type NoteForExtraction, noteText } from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../../../src/modules/graph/extractors/local";
import { STOPWORDS, WEAK_ALONE_WORDS } from "../../../../src/modules/graph/extractors/local/stopwords";
import { loadNote, loadSampleNotes } from "../../../fixtures/notes/load-note";

const extractor = createLocalExtractor(buildCorpusStats(loadSampleNotes()));
const noContext = { existingConcepts: [] };
const typeOf = (extraction: NoteExtraction, name: string) =>
  extraction.concepts.find((concept) => conceptKey(concept.name) === conceptKey(name))?.type;
const names = (extraction: NoteExtraction) => extraction.concepts.map((concept) => concept.name);
const related = (extraction: NoteExtraction, a: string, b: string) =>
  extraction.relations.some((relation) => [relation.source, relation.target].sort().join("|") === [a, b].sort().join("|"));

describe("local extractor: Chinese notes", () => {
  test("hashtags, wikilinks, headings, bold terms and inline code become typed concepts", async () => {
    const result = await extractor.extract(loadNote("deep-learning-zh.md"), noContext);
    expect(typeOf(result, "机器学习")).toBe("tag");
    expect(typeOf(result, "深度学习")).toBe("tag");
    expect(typeOf(result, "反向传播")).toBe("link");
    expect(typeOf(result, "神经网络")).toBe("topic");
    expect(typeOf(result, "训练过程")).toBe("topic");
    expect(typeOf(result, "过拟合")).toBe("topic");
    expect(typeOf(result, "激活函数")).toBe("concept");
    expect(typeOf(result, "梯度下降")).toBe("concept");
    expect(typeOf(result, "PyTorch")).toBe("technology");
  });

  test("segmented compounds are found as key phrases", async () => {
    const deep = names(await extractor.extract(loadNote("deep-learning-zh.md"), noContext));
    expect(deep).toEqual(expect.arrayContaining(["损失函数", "学习率"]));
    const short = names(await extractor.extract(loadNote("neural-networks-short-zh.md"), noContext));
    expect(short).toEqual(expect.arrayContaining(["神经网络", "注意力机制", "激活函数"]));
  });

  test("function words, single segments inside compounds, code and URLs are not concepts", async () => {
    const functionWords = ["的", "了", "是", "我们", "这个", "可以", "一个", "没有", "因为", "所以", "通过", "进行"];
    for (const file of ["deep-learning-zh.md", "sapiens-zh.md", "neural-networks-short-zh.md"]) {
      const found = names(await extractor.extract(loadNote(file), noContext));
      for (const word of functionWords) expect(found).not.toContain(word);
      for (const name of found) expect(name).not.toMatch(/代码|epoch|range|backward|example|http/);
      expect(found).not.toContain("学习");
      expect(found).not.toContain("革命");
    }
  });

  test("a title after a generic label names the topic; a clause-like title does not", async () => {
    const sapiens = await extractor.extract(loadNote("sapiens-zh.md"), noContext);
    expect(typeOf(sapiens, "人类简史")).toBe("topic");
    expect(typeOf(sapiens, "读书笔记")).toBe("tag");
    const short = await extractor.extract(loadNote("neural-networks-short-zh.md"), noContext);
    expect(names(short)).not.toContain("关于神经网络的一些想法");
  });

  test("sections relate their own concepts only", async () => {
    const sapiens = await extractor.extract(loadNote("sapiens-zh.md"), noContext);
    expect(related(sapiens, "农业革命", "小麦")).toBe(true);
    // 故事 (story) is an everyday word: no concept alone (issue 46); 虚构 stands for the section's subject.
    expect(related(sapiens, "认知革命", "虚构")).toBe(true);
    expect(related(sapiens, "虚构", "小麦")).toBe(false);
    const short = await extractor.extract(loadNote("neural-networks-short-zh.md"), noContext);
    expect(related(short, "神经网络", "激活函数")).toBe(true);
    expect(related(short, "激活函数", "注意力机制")).toBe(false);
  });

  test("mentions point at the concept in the note text", async () => {
    for (const file of ["deep-learning-zh.md", "sapiens-zh.md", "neural-networks-short-zh.md"]) {
      const input = loadNote(file);
      const text = noteText(input);
      for (const concept of (await extractor.extract(input, noContext)).concepts) {
        for (const mention of concept.mentions) {
          const atTitle = mention.start === 0 && mention.end === input.title.length;
          if (concept.type === "tag" && atTitle) continue;
          expect(conceptKey(text.slice(mention.start, mention.end))).toContain(conceptKey(concept.name));
        }
      }
    }
  });

  test("full-width Latin and transliterated names are read", async () => {
    const input: NoteForExtraction = {
      id: 7,
      title: "框架笔记",
      content: "我们用 ＰｙＴｏｒｃｈ 训练模型，PyTorch 的文档很好。\n\n尤瓦尔·赫拉利写了《人类简史》。尤瓦尔·赫拉利是历史学家。",
      tags: [],
    };
    const result = await extractor.extract(input, noContext);
    const keys = result.concepts.map((concept) => conceptKey(concept.name));
    expect(keys.filter((key) => key === "pytorch")).toHaveLength(1);
    expect(keys).toContain("尤瓦尔·赫拉利");
  });

  test("a mixed English and Chinese note relates concepts across scripts", async () => {
    const input: NoteForExtraction = {
      id: 8,
      title: "Transformer 笔记",
      content: "**Transformer** 使用**自注意力机制**。自注意力机制 让 Transformer 可以并行训练。",
      tags: ["NLP"],
    };
    const result = await extractor.extract(input, noContext);
    expect(related(result, "Transformer", "自注意力机制")).toBe(true);
  });

  test("words too vague alone still make phrases: 地方政府 is a concept, 地方 and 部分 are not", async () => {
    const input: NoteForExtraction = {
      id: 9,
      title: "财政读书笔记",
      content: "地方政府的财政收入来自土地出让。地方政府债务越来越重，地方政府需要新的收入来源。\n\n核心部分是税制改革：地方政府与中央的分成。",
      tags: [],
    };
    const keys = (await extractor.extract(input, noContext)).concepts.map((concept) => conceptKey(concept.name));
    expect(keys).toContain("地方政府");
    for (const vague of ["地方", "部分", "情况"]) expect(keys).not.toContain(vague);
  });

  test("no word is both a stop word and one that is only vague alone", () => {
    expect([...WEAK_ALONE_WORDS].filter((word) => STOPWORDS.has(word))).toEqual([]);
  });
});
