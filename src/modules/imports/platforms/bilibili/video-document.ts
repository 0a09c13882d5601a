import { importedTitle } from "../../../notes/note-text";
import type { ImportedDocument } from "../types";
import type { SubtitleLine, Video } from "./api-answers";
import { videoLink } from "./video-links";
import { clockTime, renderTranscript } from "../../../transcripts/render-transcript";

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

/** The address of a moment of the video, for a transcript paragraph's time. */
export function momentLink(bvid: string, part: number, seconds: number): string {
  return `https://www.bilibili.com/video/${bvid}?p=${part}&t=${Math.max(0, Math.floor(seconds))}`;
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

  const subtitles = input.subtitles;
  let media: ImportedDocument["media"];
  if (subtitles?.kind === "track") {
    blocks.push(
      renderTranscript({
        source: `subtitles (${subtitles.label})`,
        segments: subtitles.lines.filter((line) => line.content.trim()).map((line) => ({ start: line.from, end: line.to, text: line.content.trim() })),
        linkAt: (seconds) => momentLink(video.bvid, part, seconds),
      }),
    );
  } else if (subtitles) {
    // No subtitles: the words come from the sound, when speech-to-text is set up.
    const cid = chosen?.cid ?? video.cid ?? undefined;
    if (cid) {
      media = {
        key: `bilibili:${video.bvid}:${part}`,
        source: { bilibili: { bvid: video.bvid, cid } },
        videoUrl: link,
        part,
        withoutTranscript: renderSubtitles(subtitles),
      };
    } else blocks.push(renderSubtitles(subtitles));
  }

  return {
    title: importedTitle(video.title) || `Bilibili video ${video.bvid}`,
    markdown: blocks.join("\n\n"),
    tags: [...new Set([...input.tags, video.tname ?? ""].map((tag) => tag.trim()))].filter(Boolean),
    sourceUrl: link,
    author: name,
    publishedAt: video.pubdate ? new Date(video.pubdate * 1000).toISOString() : undefined,
    ...(media ? { media } : {}),
  };
}

function renderSubtitles(subtitles: Exclude<Subtitles, { kind: "track" }>): string {
  switch (subtitles.kind) {
    case "login-required":
      return "_No subtitles: Bilibili lists them only for logged-in requests._";
    case "none":
      return "_This video has no subtitles._";
    case "failed":
      return "_The subtitles could not be loaded._";
  }
}

/** `mm:ss`, or `h:mm:ss` past an hour: the transcript's clock. */
export const timestamp = clockTime;
