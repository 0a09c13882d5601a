import { httpStatusError, ImportError } from "../../import-error";
import { followShortLink, hostMatches, parseHttpUrl } from "../short-links";
import type { Fetcher, ImportedDocument } from "../types";
import {
  EnvelopeSchema,
  errorForCode,
  PlayerSchema,
  rateLimited,
  SubtitleBodySchema,
  type SubtitleTrack,
  TagsSchema,
  VideoSchema,
} from "./api-answers";
import { type Subtitles, videoDocument } from "./video-document";
import { BILIBILI_SHORT_HOSTS, isShortLink, type VideoRef, videoRefFromUrl } from "./video-links";

export interface BilibiliFetchOptions {
  /** SESSDATA cookie of a logged-in account: the player API lists subtitles only with it. */
  sessdata?: string;
  /** Where the JSON API lives; a test points it at a fixture server. */
  apiBase?: string;
}

const DEFAULT_API_BASE = "https://api.bilibili.com";
const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
};
// Subtitle files live on Bilibili's CDN; the cookie must not go anywhere else.
const COOKIE_HOSTS = ["bilibili.com", "hdslb.com"];
const PREFERRED_LANGUAGES = ["zh-Hans", "zh-CN", "ai-zh"];

interface Session {
  fetcher: Fetcher;
  apiBase: string;
  cookie?: string;
  signal?: AbortSignal;
}

/**
 * Imports a video through the unsigned JSON API: `view` for the video (fatal on error), then its
 * tags and subtitles (`view/detail/tag`, `player/wbi/v2`, the subtitle file), whose failures only
 * leave those parts out.
 */
export async function fetchBilibiliVideo(
  url: string,
  fetcher: Fetcher,
  options: BilibiliFetchOptions = {},
  signal?: AbortSignal,
): Promise<ImportedDocument> {
  const session: Session = {
    fetcher,
    apiBase: (options.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, ""),
    cookie: sessdataCookie(options.sessdata),
    signal,
  };
  const ref = await resolveVideoRef(url, fetcher, signal);
  const params: Record<string, string> = "bvid" in ref ? { bvid: ref.bvid } : { aid: String(ref.aid) };
  const answer = VideoSchema.safeParse(await apiData(session, "/x/web-interface/view", params));
  if (!answer.success) throw formatChanged();
  const video = answer.data;

  const cid = video.pages?.find((page) => page.page === ref.part)?.cid ?? video.cid ?? undefined;
  const [tags, subtitles] = await Promise.all([
    loadTags(session, video.bvid, cid),
    loadSubtitles(session, video.bvid, cid),
  ]);
  return videoDocument({ video, tags, subtitles, part: ref.part });
}

async function resolveVideoRef(url: string, fetcher: Fetcher, signal?: AbortSignal): Promise<VideoRef> {
  const parsed = parseHttpUrl(url);
  if (parsed && isShortLink(parsed)) {
    const page = await followShortLink(parsed.toString(), fetcher, {
      platform: "Bilibili",
      shortHosts: BILIBILI_SHORT_HOSTS,
      headers: BROWSER_HEADERS,
      signal,
    });
    const ref = videoRefFromUrl(page.url);
    if (ref) return ref;
    throw new ImportError(
      "This b23.tv short link does not lead to a Bilibili video (only videos can be imported).",
      { permanent: true },
    );
  }
  const ref = parsed && videoRefFromUrl(parsed);
  if (ref) return ref;
  throw new ImportError(
    "This is not a Bilibili video link: use https://www.bilibili.com/video/BV… (or av…) or a b23.tv short link.",
    { permanent: true },
  );
}

/** One API call: the answer's `data`, or the ImportError its HTTP status or `code` means. */
async function apiData(
  session: Session,
  path: string,
  params: Record<string, string>,
  withCookie = false,
): Promise<unknown> {
  const headers: Record<string, string> = {
    ...BROWSER_HEADERS,
    Accept: "application/json, text/plain, */*",
    Referer: "https://www.bilibili.com/",
    Origin: "https://www.bilibili.com",
  };
  if (withCookie && session.cookie) headers.Cookie = session.cookie;
  const page = await session.fetcher(`${session.apiBase}${path}?${new URLSearchParams(params)}`, {
    headers,
    signal: session.signal,
  });
  // Bilibili answers risk-controlled addresses with HTTP 412.
  if (page.status === 412) throw rateLimited();
  const failure = httpStatusError(page.status, { site: "Bilibili", item: "video" });
  if (failure && !failure.permanent) throw failure;
  let json: unknown;
  try {
    json = JSON.parse(page.body);
  } catch {
    // Error statuses with a JSON body carry a `code` that says more; without one, the status speaks.
    if (failure) throw failure;
    // A cut-off or HTML answer is usually a passing fault at the edge.
    throw new ImportError("Bilibili gave an unreadable answer; the import will be retried.", {
      permanent: false,
    });
  }
  const envelope = EnvelopeSchema.safeParse(json);
  if (!envelope.success) throw formatChanged();
  if (envelope.data.code !== 0) throw errorForCode(envelope.data.code);
  return envelope.data.data;
}

async function loadTags(session: Session, bvid: string, cid: number | undefined): Promise<string[]> {
  const params: Record<string, string> = { bvid };
  if (cid) params.cid = String(cid);
  const data = await optional(session, () => apiData(session, "/x/web-interface/view/detail/tag", params));
  const tags = TagsSchema.safeParse(data);
  return tags.success ? tags.data.map((tag) => tag.tag_name) : [];
}

async function loadSubtitles(session: Session, bvid: string, cid: number | undefined): Promise<Subtitles> {
  if (!cid) return { kind: "failed" };
  const data = await optional(session, () =>
    apiData(session, "/x/player/wbi/v2", { bvid, cid: String(cid) }, true),
  );
  const player = PlayerSchema.safeParse(data);
  if (data === undefined || !player.success) return { kind: "failed" };
  const tracks = player.data.subtitle?.subtitles ?? [];
  const track = pickTrack(tracks);
  if (!track) return session.cookie ? { kind: "none" } : { kind: "login-required" };

  const fileUrl = parseHttpUrl(track.subtitle_url.startsWith("//") ? `https:${track.subtitle_url}` : track.subtitle_url);
  if (!fileUrl) return { kind: "failed" };
  const headers: Record<string, string> = { ...BROWSER_HEADERS, Referer: "https://www.bilibili.com/" };
  if (session.cookie && hostMatches(fileUrl.hostname, COOKIE_HOSTS)) headers.Cookie = session.cookie;
  const file = await optional(session, () =>
    session.fetcher(fileUrl.toString(), { headers, signal: session.signal }),
  );
  if (!file || file.status < 200 || file.status >= 300) return { kind: "failed" };
  let body: unknown;
  try {
    body = JSON.parse(file.body);
  } catch {
    return { kind: "failed" };
  }
  const parsed = SubtitleBodySchema.safeParse(body);
  if (!parsed.success) return { kind: "failed" };
  return { kind: "track", label: track.lan_doc || track.lan, lines: parsed.data.body };
}

/** Chinese first (human, then AI-generated), else whatever the video has. */
export function pickTrack(tracks: SubtitleTrack[]): SubtitleTrack | undefined {
  const usable = tracks.filter((track) => track.subtitle_url);
  for (const language of PREFERRED_LANGUAGES) {
    const track = usable.find((candidate) => candidate.lan === language);
    if (track) return track;
  }
  return usable.find((track) => track.lan.startsWith("zh")) ?? usable[0];
}

/** Runs an extra request whose failure must not fail the import, unless the import was cancelled. */
async function optional<T>(session: Session, request: () => Promise<T>): Promise<T | undefined> {
  try {
    return await request();
  } catch (error) {
    if (session.signal?.aborted) throw error;
    return undefined;
  }
}

function sessdataCookie(sessdata: string | undefined): string | undefined {
  const value = sessdata?.trim().replace(/^SESSDATA=/, "");
  return value ? `SESSDATA=${value}` : undefined;
}

function formatChanged(): ImportError {
  return new ImportError(
    "Bilibili's answer was not in the expected format, so the video could not be read. Paste the video page's HTML source or its text as `content` instead.",
    { permanent: true },
  );
}
