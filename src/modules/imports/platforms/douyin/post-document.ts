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
}

const HASHTAG = /#[^\s#]+/g;

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
