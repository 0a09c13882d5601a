import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import type { NoteForExtraction } from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../../../src/modules/graph/extractors/local";
import { addNewWords, type TaggedSegment } from "../../../../src/modules/graph/extractors/local/cjk-new-words";
import { createTermSink } from "../../../../src/modules/graph/extractors/local/term-index";

/** Segments from "word/tag" pieces, one run; "|" is a break between runs. */
function segments(...pieces: string[]): TaggedSegment[] {
  const found: TaggedSegment[] = [];
  let start = 0;
  for (const piece of pieces) {
    if (piece === "|") {
      found.push({ text: "\n", start, pos: "", isBreak: true });
      start += 1;
      continue;
    }
    const [text, pos] = piece.split("/") as [string, string];
    found.push({ text, start, pos, isBreak: false });
    start += text.length;
  }
  return found;
}

function newWords(input: TaggedSegment[]) {
  const sink = createTermSink();
  addNewWords(sink, input);
  return sink.index;
}

describe("Chinese new-word discovery", () => {
  test("adjacent jieba words become a candidate word, with the cohesion of its edges", () => {
    const index = newWords(segments("用/p", "互斥/v", "锁/v", "保护/v", "|", "互斥/v", "锁/v", "的/uj", "代价/n"));
    const term = index.get("互斥锁");
    expect(term?.starts).toEqual([1, 7]);
    expect(term?.coined).toBe(1);
    expect(index.get("互斥锁")?.size).toBe(1);
  });

  test("a string always followed by the same character is part of a longer one (not maximal)", () => {
    // 布隆过滤 is always 布隆过滤器: its right edge is never free.
    const index = newWords(segments("布隆/nr", "过滤/v", "器/k", "|", "布隆/nr", "过滤/v", "器/k"));
    expect(index.has("布隆过滤")).toBe(false);
    expect(index.has("布隆过滤器")).toBe(true);
  });

  test("a grammar word is never at a word's edge nor inside it, and frees the edge next to it", () => {
    const index = newWords(segments("基金/n", "的/uj", "费率/n", "|", "典型/n", "的/uj", "过/ug", "拟合/v", "|", "防止/v", "过/ug", "拟合/v"));
    expect(index.has("基金的费率")).toBe(false);
    expect(index.has("的费率")).toBe(false);
    expect(index.has("典型的")).toBe(false);
    // 过 may open a word jieba lacks (an aspect particle to it); 的 on one side and 防 on the other are two neighbours.
    expect(index.get("过拟合")?.starts.length).toBe(2);
    expect(index.has("防止过")).toBe(false);
  });

  test("numerals and quantities are grammar: 投了两万, 一年下来 are no words", () => {
    const index = newWords(segments("一年/m", "下来/t", "投/vn", "了/ul", "两万/m"));
    // 下来投 is a candidate like any other (a chance string said once: it has to recur to count).
    expect([...index.keys()]).toEqual(["下来投"]);
  });

  test("a candidate said twice with the same neighbour on one side is dropped for the longer string", () => {
    const index = newWords(segments("练/v", "臀/n", "大/a", "肌/n", "|", "练/v", "臀/n", "大/a", "肌/n"));
    expect(index.has("臀大肌")).toBe(false);
    expect(index.get("练臀大肌")?.starts).toEqual([0, 5]);
  });

  test("a phrase the grammar reader already indexed keeps its standing", () => {
    const sink = createTermSink();
    sink.index.set("大熊猫基地", { key: "大熊猫基地", size: 2, starts: [0], ends: [5] });
    addNewWords(sink, segments("大熊猫/n", "基地/n"));
    expect(sink.index.get("大熊猫基地")?.coined).toBeUndefined();
  });
});

describe("local extractor: Chinese words jieba's dictionary lacks", () => {
  const note = (id: number, title: string, content: string): NoteForExtraction => ({ id, title, content, tags: [] });
  const notes = [
    note(1, "缓存击穿", "热点数据过期的瞬间，大量请求打到数据库。常见做法是加互斥锁，只让一个请求去重建缓存。"),
    note(2, "故障复盘", "零点流量暴涨，缓存失效后数据库被打满。下次提前预热，重建缓存之前先拿互斥锁。"),
    note(3, "读书笔记", "今天读完了一本小说，讲的是一个家族几代人的故事，结尾很动人。"),
  ];

  test("a split word two notes write becomes a concept; a chance string does not", async () => {
    const extractor = createLocalExtractor(buildCorpusStats(notes));
    for (const source of notes.slice(0, 2)) {
      const names = (await extractor.extract(source, { existingConcepts: [] })).concepts.map((concept) => conceptKey(concept.name));
      expect(names).toContain("互斥锁");
      expect(names).not.toContain("加互斥锁");
    }
  });
});
