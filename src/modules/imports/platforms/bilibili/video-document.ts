import { importedTitle } from "../../../notes/note-text";
import type { ImportedDocument } from "../types";
import type { SubtitleLine, Video } from "./api-answers";
import { videoLink } from "./video-links";

/** What became of the subtitles: a track's lines, or why there are none. */
export type Subtitles =
  | { kind: "track"; label: string; lines: SubtitleLine[] }
  | { kind: "login-required" }
  | { kind: "none" }
  | { kind: "failed" };

export interface VideoDocumentInput {
  video: Video;
  tags: string[];
  /** Author when the video itself does not name one (the page's `upData`). */
  uploader?: { name?: string | null; mid?: number | null };
  part?: number;
  /** Absent for pasted pages, which carry no subtitles. */
  subtitles?: Subtitles;
}

export function videoDocument(input: VideoDocumentInput): ImportedDocument {
  const { video } = input;
  const part = input.part ?? 1;
  const name = video.owner?.name || input.uploader?.name || undefined;
  const mid = video.owner?.mid ?? input.uploader?.mid ?? undefined;
  const link = videoLink(video.bvid, part);

  const blocks: string[] = [];
  const desc = video.desc?.trim();
  // Bilibili shows "-" for a video without a description.
  if (desc && desc !== "-") blocks.push(desc);
  if (video.pic) blocks.push(`![](${video.pic.replace(/^(?:https?:)?\/\//, "https://")})`);

  const facts: string[] = [];
  if (name) facts.push(`- Uploader: ${mid ? `[${name}](https://space.bilibili.com/${mid})` : name}`);
  const pages = video.pages ?? [];
  const chosen = pages.find((page) => page.page === part);
  if (pages.length > 1 && chosen) facts.push(`- Part: P${chosen.page} ${chosen.part ?? ""}`.trimEnd());
  facts.push(`- Video: ${link}`);
  blocks.push(facts.join("\n"));

  const subtitles = input.subtitles && renderSubtitles(input.subtitles);
  if (subtitles) blocks.push(subtitles);

  return {
    title: importedTitle(video.title) || `Bilibili video ${video.bvid}`,
    markdown: blocks.join("\n\n"),
    tags: [...new Set([...input.tags, video.tname ?? ""].map((tag) => tag.trim()))].filter(Boolean),
    sourceUrl: link,
    author: name,
    publishedAt: video.pubdate ? new Date(video.pubdate * 1000).toISOString() : undefined,
  };
}

function renderSubtitles(subtitles: Subtitles): string {
  switch (subtitles.kind) {
    case "track": {
      const lines = subtitles.lines
        .filter((line) => line.content.trim())
        .map((line) => `- ${timestamp(line.from)} ${line.content.trim()}`);
      return [`## Subtitles (${subtitles.label})`, lines.join("\n")].join("\n\n");
    }
    case "login-required":
      return "_No subtitles: Bilibili lists them only for logged-in requests._";
    case "none":
      return "_This video has no subtitles._";
    case "failed":
      return "_The subtitles could not be loaded._";
  }
}

/** `mm:ss`, or `h:mm:ss` past an hour. */
export function timestamp(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const mmss = `${String(minutes).padStart(2, "0")}:${String(secs).padStart(2, "0")}`;
  return hours ? `${hours}:${mmss}` : mmss;
}
