import { importedTitle } from "../../../notes/note-text";
import type { ImportedDocument } from "../types";
import { postLink } from "./post-links";

/** A Douyin post as both page formats (share page, douyin.com RENDER_DATA) describe it. */
export interface DouyinPost {
  id?: string;
  desc: string;
  author?: string;
  /** Unix seconds. */
  createTime?: number;
  hashtags: string[];
  images: string[];
  cover?: string;
  /** A video's own soundtrack (its video file), for the transcript. */
  playUrl?: string;
}

const HASHTAG = /#[^\s#]+/g;
// Douyin's video CDN serves the file to the mobile share page's browser.
const IPHONE_USER_AGENT =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

export function postDocument(post: DouyinPost): ImportedDocument {
  const isImagePost = post.images.length > 0;
  const blocks: string[] = [];
  const desc = post.desc.trim();
  if (desc) blocks.push(desc);
  if (post.author) blocks.push(`- Author: ${post.author}`);
  const pictures = isImagePost ? post.images : post.cover ? [post.cover] : [];
  for (const src of pictures) blocks.push(`![](${src})`);

  const hashtags = post.hashtags.length
    ? post.hashtags
    : Array.from(desc.matchAll(HASHTAG), (match) => match[0].slice(1));
  const kind = isImagePost ? "note" : "video";
  return {
    title: titleFromDesc(desc) ?? `Douyin ${isImagePost ? "image post" : "video"}${post.author ? ` by ${post.author}` : ""}`,
    markdown: blocks.join("\n\n"),
    tags: [...new Set(hashtags.map((tag) => tag.trim()))].filter(Boolean),
    sourceUrl: post.id ? postLink({ id: post.id, kind }) : undefined,
    author: post.author,
    publishedAt: post.createTime ? new Date(post.createTime * 1000).toISOString() : undefined,
    // Image posts have nothing to transcribe.
    ...(!isImagePost && post.id && post.playUrl
      ? { media: { key: `douyin:${post.id}`, source: { url: post.playUrl, referer: "https://www.douyin.com/", userAgent: IPHONE_USER_AGENT } } }
      : {}),
  };
}

/** The first line of the description once hashtags are gone. */
function titleFromDesc(desc: string): string | undefined {
  for (const line of desc.split("\n")) {
    const text = importedTitle(line.replace(HASHTAG, " "));
    if (text) return text;
  }
  return undefined;
}
