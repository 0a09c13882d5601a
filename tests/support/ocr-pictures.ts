// Pictures of known Chinese and English sentences, drawn by Chromium (the test's own HTML, Noto
// fonts), and the character error rate of what OCR read from them: for the OCR tests and bench:ocr.
import { execFileSync } from "node:child_process";
import type { Browser } from "playwright-core";

export const CHINESE = [
  "知识图谱把笔记连成一张网。",
  "今天下午三点在会议室讨论项目进度。",
  "人工智能正在改变我们的工作方式。",
  "这家小店的牛肉面汤头浓郁，价格实惠。",
  "周末去西湖边散步，看见荷花开得正好。",
  "请在下周五之前提交年度总结报告。",
  "学习一门新语言需要每天坚持练习。",
  "本地识别图片里的文字，不需要联网。",
];

export const ENGLISH = [
  "The quick brown fox jumps over the lazy dog.",
  "Local OCR reads Chinese and English text.",
  "Search finds words that only live in pictures.",
  "Meeting notes are due before Friday afternoon.",
  "Bring two umbrellas because rain is expected.",
  "Every picture keeps its text beside the note.",
  "Fresh bread costs four dollars at the market.",
  "Remember to water the plants on the balcony.",
];

export interface PictureSpec {
  lines: string[];
  width: number;
  height: number;
  fontSize: number;
  type?: "png" | "jpeg" | "webp";
  /** CSS for the page: background and text colours. */
  colours?: { background: string; text: string };
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Fails with how to fix it when Chromium would draw Chinese as empty boxes. */
export function assertChineseFont(): void {
  let families = "";
  try {
    families = execFileSync("fc-list", [":lang=zh", "family"], { encoding: "utf8" });
  } catch {}
  if (!families.trim()) {
    throw new Error("no Chinese font is installed: the OCR tests draw Chinese text (apt-get install -y fonts-noto-cjk)");
  }
}

/** The lines drawn left-aligned in a page of the given size, as a screenshot. */
export async function drawTextPicture(browser: Browser, spec: PictureSpec): Promise<Uint8Array<ArrayBuffer>> {
  const page = await browser.newPage({ viewport: { width: spec.width, height: spec.height } });
  try {
    const { background, text } = spec.colours ?? { background: "#ffffff", text: "#111111" };
    const margin = Math.round(spec.fontSize * 1.5);
    await page.setContent(
      `<!doctype html><html><body style="margin:${margin}px;background:${background};color:${text};` +
        `font-family:'Noto Sans CJK SC','Noto Sans',sans-serif;font-size:${spec.fontSize}px;line-height:1.9">` +
        spec.lines.map((line) => `<div>${escape(line)}</div>`).join("") +
        "</body></html>",
    );
    await page.evaluate(() => document.fonts.ready);
    if (spec.type === "webp") {
      const png = await page.screenshot({ type: "png" });
      return await reencode(browser, png, "image/webp");
    }
    return new Uint8Array(await page.screenshot(spec.type === "jpeg" ? { type: "jpeg", quality: 85 } : { type: "png" }));
  } finally {
    await page.close();
  }
}

/** A PNG re-encoded by Chromium's canvas (WebP, for the decoder tests). */
async function reencode(browser: Browser, png: Uint8Array, mime: string): Promise<Uint8Array<ArrayBuffer>> {
  const page = await browser.newPage();
  try {
    const base64 = await page.evaluate(
      async ({ data, mime }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = image.width;
        canvas.height = image.height;
        canvas.getContext("2d")!.drawImage(image, 0, 0);
        return canvas.toDataURL(mime, 0.9).split(",")[1]!;
      },
      { data: Buffer.from(png).toString("base64"), mime },
    );
    return new Uint8Array(Buffer.from(base64, "base64"));
  } finally {
    await page.close();
  }
}

/** The fixture set: Chinese and English lines at 1080×1440 and smaller, PNG, JPEG and a tinted page. */
export function fixtureSet(): PictureSpec[] {
  return [
    { lines: [...CHINESE.slice(0, 4), ...ENGLISH.slice(0, 4)], width: 1080, height: 1440, fontSize: 40 },
    { lines: [...ENGLISH.slice(4), ...CHINESE.slice(4)], width: 1080, height: 1440, fontSize: 36, type: "jpeg" },
    { lines: [CHINESE[0]!, ENGLISH[1]!, CHINESE[5]!, ENGLISH[6]!], width: 720, height: 960, fontSize: 30, colours: { background: "#f6e7c8", text: "#3a2a10" } },
    { lines: [ENGLISH[2]!, CHINESE[7]!, ENGLISH[7]!], width: 540, height: 720, fontSize: 22 },
  ];
}

/** Text compared character by character: Unicode NFKC (full-width punctuation folded), whitespace dropped. */
const comparable = (text: string) => [...text.normalize("NFKC").replace(/\s+/g, "")];

/** Edits (insertions, deletions, substitutions) from what was drawn to what was read, per character drawn. */
export function characterErrorRate(expected: string, read: string): number {
  const a = comparable(expected);
  const b = comparable(read);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return a.length === 0 ? (b.length === 0 ? 0 : 1) : previous[b.length]! / a.length;
}
