// Pasted content for the task benchmark: deterministic, a few KB each, over three kinds of paste.
import fs from "node:fs";
import path from "node:path";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { draftContent } from "./seed-notes";

export type ContentKind = "web-markdown" | "xiaohongshu-text" | "wechat-html";

export interface TaskSpec {
  index: number;
  kind: ContentKind;
  /** The JSON body of POST /api/tasks. */
  body: string;
  bytes: number;
}

export const KIND_DESCRIPTIONS: Record<ContentKind, string> = {
  "web-markdown": "platform web, 2–6 KB Markdown (plain-text path)",
  "xiaohongshu-text": "platform xiaohongshu, 1–4 KB plain Chinese text with hashtags (plain-text path)",
  "wechat-html": "platform wechat, the saved article page tests/fixtures/platforms/wechat/article.html, 19 KB (linkedom parser, ~10 ms)",
};

const WECHAT_HTML = fs.readFileSync(path.resolve(import.meta.dir, "../../tests/fixtures/platforms/wechat/article.html"), "utf8");

const PHRASES = (
  "今天 周末 终于 去了 一家 很安静的 咖啡馆 推荐 大家 拿铁 手冲 甜点 阳光 窗边 座位 人不多 适合 看书 工作 " +
  "价格 还可以 环境 超级 出片 老板 很 友好 地铁站 步行 五分钟 下次 还会 再来 收藏 一下 真的 不踩雷 " +
  "城市 散步 路线 梧桐树 老洋房 小店 买手店 面包 早午餐 朋友 约会 拍照 氛围感 治愈 分享 日常 生活"
).split(" ");
const HASHTAGS = ["#咖啡", "#citywalk", "#周末去哪儿", "#探店", "#上海", "#生活记录", "#读书", "#早午餐"];
const EMOJI = ["☕️", "🌿", "📚", "✨", "🥐", "📷", "🚇"];

/** One task in ten is the WeChat page; the rest are Markdown (even indexes, 50%) or plain text (40%). */
export function kindOf(index: number): ContentKind {
  if (index % 10 === 5) return "wechat-html";
  return index % 2 === 0 ? "web-markdown" : "xiaohongshu-text";
}

function webMarkdown(random: () => number, index: number): string {
  const target = 2048 + Math.floor(random() * 4096);
  const sections = [`# Reading notes ${index}: ${draftContent(random, index).split("\n")[0]!.slice(2)}`];
  while (sections.join("\n\n").length < target) sections.push(draftContent(random, index).replace(/^# /, "## "));
  return sections.join("\n\n").slice(0, target);
}

function xiaohongshuText(random: () => number, index: number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const target = 1024 + Math.floor(random() * 3072);
  const lines = [`${pick(EMOJI)} ${pick(PHRASES)}${pick(PHRASES)}${pick(PHRASES)} 第${index}篇`, ""];
  while (Buffer.byteLength(lines.join("\n")) < target) {
    const sentence = Array.from({ length: 8 + Math.floor(random() * 12) }, () => pick(PHRASES)).join("");
    lines.push(`${sentence}${random() < 0.3 ? pick(EMOJI) : "。"}`);
  }
  lines.push("", Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(HASHTAGS)).join(" "));
  return lines.join("\n");
}

/** `count` task bodies starting at `firstIndex` (indexes keep titles unique across runs). */
export function taskSpecs(count: number, firstIndex: number, seed: number): TaskSpec[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, offset) => {
    const index = firstIndex + offset;
    const kind = kindOf(index);
    let input: { platform: string; content: string; url?: string };
    if (kind === "web-markdown") input = { platform: "web", content: webMarkdown(random, index) };
    else if (kind === "xiaohongshu-text") input = { platform: "xiaohongshu", content: xiaohongshuText(random, index) };
    else input = { platform: "wechat", content: `${WECHAT_HTML}\n<!-- bench paste ${index} -->\n` };
    const body = JSON.stringify(input);
    return { index, kind, body, bytes: Buffer.byteLength(body) };
  });
}
