/**
 * Xiaohongshu note text: `desc` marks topics as `#话题[话题]#` (adjacent ones run together as
 * `#a[话题]##b[话题]#`) and stickers as `[笑哭R]`; a note shows them as plain `#话题` and pictures.
 */

const TOPIC = /#([^#[\]\r\n]+?)\[(?:话题|搜索高亮)\]#/g;
const STICKER = /\[[^[\]\r\n]{1,12}R\]/g;
const PLAIN_HASHTAG = /(?:^|\s)#([^\s#[\]]+)/g;

/** Topic names marked in `desc`, in order, without duplicates. */
export function topicsInDesc(desc: string): string[] {
  return [...new Set(Array.from(desc.matchAll(TOPIC), (match) => (match[1] ?? "").trim()))].filter(Boolean);
}

/** `desc` with topics rendered as `#话题` and sticker markers removed. */
export function plainDesc(desc: string): string {
  return desc
    .replace(TOPIC, (whole, name: string, offset: number, text: string) => {
      // Keep adjacent topics apart: `#a#b` would read as one tag.
      const next = text[offset + whole.length];
      return `#${name.trim()}${next === "#" ? " " : ""}`;
    })
    .replace(STICKER, "")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
}

/** The first line of plain text that still has words once hashtags are removed. */
export function firstTextLine(plain: string): string | undefined {
  for (const line of plain.split("\n")) {
    const text = line.replace(PLAIN_HASHTAG, " ").replace(/\s+/g, " ").trim();
    if (text) return text;
  }
  return undefined;
}
