import { draftContent } from "./seed-notes";

// Common Han characters: words are drawn from pairs and fours of them, so some are everywhere
// and most are in a few notes, as in real writing.
const CHARACTERS = (
  "人大中国学生时年会下子出家可以后发成方多经么去法当起与好看学进种将还分此心前面又定见只主没公从知识图谱构建" +
  "数据缓存系统设计笔记阅读模型网络结构过程索引搜索链接标签理解整理记录思考工作问题重要需要已经非常因为所以如果时候"
).split("");

/** Words by frequency rank for `mixedContent`: "的" first, 图谱 at rank 150 and 知识图谱 at 400 (the benchmark's queries). */
export function chineseVocabulary(random: () => number, size = 2000): string[] {
  const pick = () => CHARACTERS[Math.floor(random() * CHARACTERS.length)]!;
  const words = new Set(["的", "知识图谱", "图谱"]);
  while (words.size < size) words.add(Array.from({ length: random() < 0.7 ? 2 : 4 }, pick).join(""));
  const ranked = [...words].slice(3);
  ranked.splice(149, 0, "图谱");
  ranked.splice(399, 0, "知识图谱");
  return ["的", ...ranked];
}

/** A ~1–2 KB note: the English of the other benchmarks with Chinese paragraphs between its blocks. */
export function mixedContent(random: () => number, index: number, vocabulary: string[]): string {
  // Zipf: the word at rank r is drawn with probability ∝ 1/r (inverse transform on the harmonic CDF).
  const harmonic = Math.log(vocabulary.length) + 0.5772;
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * harmonic - 0.5772)))]!;
  const chinese = () => `${Array.from({ length: 8 + Math.floor(random() * 15) }, word).join("")}。`;
  const english = draftContent(random, index).split("\n\n");
  return english.flatMap((block, at) => (at % 2 === 1 ? [block, chinese()] : [block])).join("\n\n").slice(0, 2048);
}
