// Realistic notes for the knowledge-graph benchmark: Markdown of about 1–2 KB (UTF-8) that names
// people, places, works and technologies — some as [[wikilinks]], some as plain Capitalised Words —
// with headings, emphasis, lists and a `Tags:` line, in English and (one note in eight) Chinese.
// Deterministic for a seed. The fake Messages API finds concepts in exactly these features, and the
// local extractor's TF-IDF needs a vocabulary wider than seed-notes.ts's sixty words.
import { seededRandom } from "../../src/modules/graph/seeded-random";

export interface DraftNote {
  title: string;
  content: string;
  tags: string[];
  language: "en" | "zh";
}

const PEOPLE = (
  "Ada Lovelace|Alan Turing|Grace Hopper|Daniel Kahneman|Amos Tversky|Herbert Simon|Donald Knuth|Barbara Liskov|" +
  "Leslie Lamport|Edsger Dijkstra|Claude Shannon|Richard Feynman|Marie Curie|Charles Darwin|Rachel Carson|Jane Jacobs|" +
  "Christopher Alexander|Hannah Arendt|Simone Weil|Ursula Le Guin|Italo Calvino|Jorge Luis Borges|Virginia Woolf|" +
  "Toni Morrison|Annie Dillard|Seneca|Marcus Aurelius|Michel de Montaigne|Niklas Luhmann|Vannevar Bush|Ted Nelson|" +
  "Douglas Engelbart|Alan Kay|Bret Victor|Andy Matuschak|Sönke Ahrens|Cal Newport|Tiago Forte|Nassim Taleb|Elinor Ostrom"
).split("|");
const PLACES = (
  "Kyoto|Lisbon|Berlin|Reykjavik|Oaxaca|Tbilisi|Hanoi|Marrakesh|Edinburgh|Valparaíso|Trieste|Kraków|Istanbul|" +
  "Cape Town|Vancouver|Patagonia|the Dolomites|Lake Baikal|the Atacama Desert|Hokkaido"
).split("|");
const TECH = (
  "PostgreSQL|SQLite|Rust|TypeScript|WebAssembly|Kubernetes|Linux|Git|Erlang|Haskell|Elixir|Kafka|Redis|LLVM|" +
  "React|Svelte|Bun|Deno|Nix|Zig|OCaml|Prolog|Lisp|CRDTs|Raft|Paxos|TLA+|GraphQL|gRPC|ZFS"
).split("|");
const CONCEPTS = (
  "Spaced Repetition|Gradient Descent|Backpropagation|Bayesian Inference|Game Theory|Systems Thinking|Deliberate Practice|" +
  "Loss Aversion|Prospect Theory|Second Brain|Zettelkasten|Progressive Summarization|Flow State|Deep Work|Stoicism|" +
  "Antifragility|Tragedy of the Commons|Pattern Language|Memex|Hypertext|Information Theory|Natural Selection|" +
  "Compound Interest|Opportunity Cost|Cognitive Load|Working Memory|Dual Process Theory|Bounded Rationality"
).split("|");
const WORKS = (
  "Thinking, Fast and Slow|Gödel, Escher, Bach|The Death and Life of Great American Cities|Silent Spring|" +
  "The Left Hand of Darkness|Invisible Cities|Meditations|The Structure of Scientific Revolutions|How to Take Smart Notes|" +
  "The Mythical Man-Month|Designing Data-Intensive Applications|Governing the Commons|The Pragmatic Programmer"
).split("|");
const ORGS = "Xerox PARC|Bell Labs|the Santa Fe Institute|CERN|Mozilla|the Royal Society|MIT Media Lab|DeepMind|the Internet Archive".split("|");

const NOUNS = (
  "attention habit memory evidence theory practice garden river market signal pattern question method reading writing " +
  "network graph concept source chapter draft review summary insight example problem solution design trade-off latency " +
  "budget schedule project meeting decision context structure process archive library index search outline argument " +
  "hypothesis experiment measurement model framework heuristic bias incentive constraint feedback loop protocol interface " +
  "abstraction invariant failure recovery migration schema query cache queue thread lock transaction replica partition " +
  "metaphor narrative character landscape season harvest ritual craft tool workshop notebook margin citation footnote"
).split(" ");
const ADJECTIVES = (
  "fast slow careful rough durable fragile simple subtle shared private implicit explicit local global early late " +
  "surprising obvious useful costly incremental radical stable noisy quiet dense sparse concrete abstract"
).split(" ");
const VERBS = (
  "shapes|explains|undermines|supports|reframes|connects|complicates|clarifies|predicts|limits|amplifies|reveals|" +
  "depends on|builds on|contrasts with|borrows from|echoes|challenges"
).split("|");
const OPENERS = ["I think", "It seems that", "In practice", "My current view is that", "Looking back,", "On reflection,", "Oddly,", "Today I noticed that"];
const TAGS = ["reading", "ideas", "work", "research", "travel", "programming", "psychology", "history", "writing", "journal", "design", "science"];

const ZH_ENTITIES = (
  "深度学习|神经网络|反向传播|王阳明|苏轼|鲁迅|钱钟书|张爱玲|沈从文|北京|杭州|成都|西安|敦煌|苏州园林|红楼梦|" +
  "围城|资治通鉴|道德经|庄子|知识管理|卡片笔记法|费曼学习法|认知负荷|间隔重复|分布式系统|数据库|编译器"
).split("|");
const ZH_NOUNS = "方法 问题 经验 记忆 习惯 结构 系统 过程 观点 证据 历史 文化 语言 细节 框架 模型 目标 计划 工具 笔记 章节 读者 作者 城市 季节".split(" ");
const ZH_VERBS = "影响 解释 支持 挑战 连接 改变 说明 依赖 启发 限制 重塑".split(" ");
const ZH_TAGS = ["读书笔记", "思考", "旅行", "技术", "历史", "学习"];

const NAMED = [...PEOPLE, ...PLACES, ...TECH, ...CONCEPTS, ...WORKS, ...ORGS];

/** `count` notes, the same for the same seed; `offset` makes titles unique across calls. */
export function draftNotes(count: number, seed: number, offset = 0): DraftNote[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => (random() < 0.125 ? chineseNote(random, offset + index) : englishNote(random, offset + index)));
}

/** A short paragraph to append when a note is edited (it names a new concept, so the extraction changes). */
export function draftEdit(seed: number): string {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  return `\n\n## Update\n\nRevisited this after a conversation about [[${pick(CONCEPTS)}]] with ${pick(PEOPLE)} in ${pick(PLACES)}; the ${pick(NOUNS)} ${pick(VERBS)} the ${pick(NOUNS)} more than I thought.`;
}

function englishNote(random: () => number, index: number): DraftNote {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  // A note has a theme of a few names it keeps coming back to, plus passing mentions.
  const theme = Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(NAMED));
  const name = () => {
    const chosen = random() < 0.7 ? pick(theme) : pick(NAMED);
    return random() < 0.35 ? `[[${chosen}]]` : chosen;
  };
  const phrase = () => `${random() < 0.4 ? `${pick(ADJECTIVES)} ` : ""}${pick(NOUNS)}`;
  const sentence = () => {
    const kind = random();
    let text: string;
    if (kind < 0.3) text = `${name()} ${pick(VERBS)} the ${phrase()} of ${phrase()}`;
    else if (kind < 0.55) text = `${pick(OPENERS)} the ${phrase()} ${pick(VERBS)} ${name()}`;
    else if (kind < 0.75) text = `the ${phrase()} in ${name()} ${pick(VERBS)} our ${phrase()} and the ${phrase()}`;
    else text = `a ${phrase()} is not the same as a ${phrase()}, which is why ${name()} matters for ${phrase()}`;
    if (random() < 0.15) text = text.replace(/the (\w+)/, "the **$1**");
    return `${capitalise(text)}.`;
  };
  const paragraph = () => Array.from({ length: 2 + Math.floor(random() * 4) }, sentence).join(" ");
  const tags = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(TAGS)))];
  const title = `${pick(["Notes on", "Thoughts about", "Reading:", "On", "Questions about"])} ${theme[0]} (${index + 1})`;
  const blocks = [`# ${theme[0]} and ${theme[1]}`, paragraph()];
  const target = 850 + Math.floor(random() * 900);
  while (blocks.join("\n\n").length < target) {
    const kind = random();
    if (kind < 0.15) blocks.push(`## ${capitalise(pick(ADJECTIVES))} ${pick(NOUNS)}`);
    else if (kind < 0.3) blocks.push(Array.from({ length: 3 }, () => `- ${sentence()}`).join("\n"));
    else if (kind < 0.38) blocks.push(`> ${sentence()} — ${pick(PEOPLE)}`);
    else blocks.push(paragraph());
  }
  blocks.push(`Tags: ${tags.join(", ")}`);
  return { title, content: blocks.join("\n\n"), tags, language: "en" };
}

function chineseNote(random: () => number, index: number): DraftNote {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const theme = Array.from({ length: 3 + Math.floor(random() * 3) }, () => pick(ZH_ENTITIES));
  const name = () => {
    const chosen = random() < 0.7 ? pick(theme) : random() < 0.8 ? pick(ZH_ENTITIES) : pick(PEOPLE);
    return random() < 0.35 ? `[[${chosen}]]` : chosen;
  };
  const sentence = () => {
    const kind = random();
    if (kind < 0.35) return `${name()}${pick(ZH_VERBS)}了我们对${pick(ZH_NOUNS)}的理解。`;
    if (kind < 0.65) return `读${name()}的时候，我发现${pick(ZH_NOUNS)}和${pick(ZH_NOUNS)}之间的关系比想象中更复杂。`;
    return `关于${name()}，最重要的${pick(ZH_NOUNS)}是**${pick(ZH_NOUNS)}**，它${pick(ZH_VERBS)}了整个${pick(ZH_NOUNS)}。`;
  };
  const paragraph = () => Array.from({ length: 2 + Math.floor(random() * 3) }, sentence).join("");
  const tags = [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(ZH_TAGS)))];
  const blocks = [`# ${theme[0]}与${theme[1]}`, paragraph()];
  // About 300–550 characters: 1–2 KB of UTF-8.
  const target = 300 + Math.floor(random() * 250);
  while (blocks.join("\n\n").length < target) {
    const kind = random();
    if (kind < 0.2) blocks.push(`## ${pick(ZH_NOUNS)}与${pick(ZH_NOUNS)}`);
    else if (kind < 0.35) blocks.push(Array.from({ length: 3 }, () => `- ${sentence()}`).join("\n"));
    else blocks.push(paragraph());
  }
  blocks.push(tags.map((tag) => `#${tag}`).join(" "));
  return { title: `${theme[0]}笔记（${index + 1}）`, content: blocks.join("\n\n"), tags, language: "zh" };
}

function capitalise(word: string): string {
  return `${word[0]!.toUpperCase()}${word.slice(1)}`;
}
