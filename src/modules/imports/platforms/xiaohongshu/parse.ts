import { z } from "zod";
import { parseHtmlDocument } from "../../html-to-markdown";
import { readScriptAssignments } from "../page-scripts";
import type { ImportedDocument } from "../types";
import { noNoteOnPage, notFoundPage } from "./errors";
import { noteIdFromUrl, noteLink } from "./note-links";
import { importedTitle } from "../../../notes/note-text";
import { firstTextLine, plainDesc, topicsInDesc } from "./note-text";

const NoteSchema = z.object({
  noteId: z.string().nullish(),
  type: z.string().nullish(),
  title: z.string().nullish(),
  desc: z.string().nullish(),
  time: z.number().nullish(),
  lastUpdateTime: z.number().nullish(),
  user: z.object({ nickname: z.string().nullish(), nickName: z.string().nullish() }).nullish(),
  tagList: z.array(z.object({ name: z.string().nullish() }).nullable()).nullish(),
  imageList: z
    .array(
      z
        .object({ urlDefault: z.string().nullish(), url: z.string().nullish(), urlPre: z.string().nullish() })
        .nullable(),
    )
    .nullish(),
  video: z
    .object({
      consumer: z.object({ originVideoKey: z.string().nullish() }).nullish(),
      media: z
        .object({
          stream: z
            .object({ h264: z.array(z.object({ masterUrl: z.string().nullish() })).nullish() })
            .nullish(),
        })
        .nullish(),
    })
    .nullish(),
});
type Note = z.infer<typeof NoteSchema>;

const StateSchema = z.object({
  note: z
    .object({
      currentNoteId: z.string().nullish(),
      noteDetailMap: z.record(z.string(), z.object({ note: z.unknown().optional() }).nullable()).nullish(),
    })
    .nullish(),
  // The mobile share page keeps the note elsewhere.
  noteData: z.object({ data: z.object({ noteData: z.unknown().optional() }).nullish() }).nullish(),
});

const NOT_FOUND_TITLE = "你访问的页面不见了";
const TITLE_SUFFIX = /\s*-\s*小红书\s*$/;

/**
 * Reads a Xiaohongshu note page (fetched, or its saved HTML pasted). `url` is the page's address,
 * used to pick the note when the state holds several. Throws a permanent ImportError for the
 * look-alike 404 page and for pages with no note (captcha, not found).
 */
export function parseXiaohongshuPage(html: string, url?: string): ImportedDocument {
  const page = parseHtmlDocument(html);
  const pageTitle = page.querySelector("title")?.textContent?.trim() ?? "";
  if (pageTitle.includes(NOT_FOUND_TITLE)) throw notFoundPage();

  const note = findNote(readScriptAssignments(page, ["__INITIAL_STATE__"]).get("__INITIAL_STATE__"), url);
  if (!note) return parseRenderedNote(page, url);

  const desc = note.desc ?? "";
  const plain = plainDesc(desc);
  const author = note.user?.nickname || note.user?.nickName || undefined;
  const ogTitle =
    page.querySelector('meta[property="og:title"], meta[name="og:title"]')?.getAttribute("content") ?? "";
  const title =
    note.title?.trim() ||
    firstTextLine(plain) ||
    pageTitle.replace(TITLE_SUFFIX, "").trim() ||
    ogTitle.replace(TITLE_SUFFIX, "").trim() ||
    (author ? `Xiaohongshu note by ${author}` : "Xiaohongshu note");

  const noteId = note.noteId ?? (url ? noteIdFromUrl(url) : undefined);
  const timestamp = note.time ?? note.lastUpdateTime;
  return {
    title: importedTitle(title),
    markdown: renderMarkdown(plain, note),
    tags: [
      ...new Set([
        ...(note.tagList ?? []).map((tag) => tag?.name?.trim() ?? ""),
        ...topicsInDesc(desc),
      ]),
    ].filter(Boolean),
    sourceUrl: noteId ? noteLink(noteId, url) : undefined,
    author,
    publishedAt: timestamp ? new Date(timestamp).toISOString() : undefined,
  };
}

function findNote(state: unknown, url: string | undefined): Note | undefined {
  const parsed = StateSchema.safeParse(state);
  if (!parsed.success) return undefined;
  const map = parsed.data.note?.noteDetailMap ?? {};
  const preferred = [parsed.data.note?.currentNoteId, url ? noteIdFromUrl(url) : undefined];
  const keys = Object.keys(map);
  const candidates = [
    ...preferred.filter((key): key is string => !!key && key in map),
    // XHS-Downloader takes the last entry when nothing names the note.
    ...keys.reverse(),
  ].map((key) => map[key]?.note);
  candidates.push(parsed.data.noteData?.data?.noteData);

  for (const candidate of candidates) {
    const note = NoteSchema.safeParse(candidate);
    if (note.success && hasContent(note.data)) return note.data;
  }
  return undefined;
}

// A captcha or 404 render keeps an empty `note: {}` in the map.
function hasContent(note: Note): boolean {
  return !!(note.noteId || note.title || note.desc || note.imageList?.length);
}

function renderMarkdown(plain: string, note: Note): string {
  const blocks: string[] = [];
  if (plain) blocks.push(plain);
  const video = videoUrl(note);
  if (video) blocks.push(`[Video](${video})`);
  for (const image of note.imageList ?? []) {
    const src = image?.urlDefault || image?.url || image?.urlPre;
    if (src) blocks.push(`![](${secureCdnUrl(src)})`);
  }
  return blocks.join("\n\n");
}

function videoUrl(note: Note): string | undefined {
  const key = note.video?.consumer?.originVideoKey;
  if (key) return `https://sns-video-bd.xhscdn.com/${key}`;
  const master = note.video?.media?.stream?.h264?.[0]?.masterUrl;
  return master ? secureCdnUrl(master) : undefined;
}

// The state lists CDN images as http://; the same paths are served over https.
function secureCdnUrl(src: string): string {
  return /^http:\/\/[^/]*xhscdn\.com\//i.test(src) ? `https://${src.slice("http://".length)}` : src;
}

/** A page saved after it rendered may have lost its state script but still show the note. */
function parseRenderedNote(page: Document, url: string | undefined): ImportedDocument {
  const desc = page.querySelector("#detail-desc")?.textContent?.trim();
  if (!desc) throw noNoteOnPage();
  const title = page.querySelector("#detail-title")?.textContent?.trim() || firstTextLine(desc);
  const noteId = url ? noteIdFromUrl(url) : undefined;
  const author = page.querySelector(".author-wrapper .username")?.textContent?.trim() || undefined;
  return {
    title: importedTitle(title ?? "") || "Xiaohongshu note",
    markdown: desc,
    tags: [...new Set(Array.from(desc.matchAll(/#([^\s#[\]]+)/g), (match) => match[1] ?? ""))],
    sourceUrl: noteId ? noteLink(noteId, url) : undefined,
    author,
  };
}
