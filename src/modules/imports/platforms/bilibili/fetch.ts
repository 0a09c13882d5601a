import { httpStatusError, ImportError } from "../../import-error";
import { followShortLink, hostMatches, parseHttpUrl } from "../short-links";
import type { Fetcher, ImportedDocument, MediaLocation } from "../types";
import { mixinKey, signWbi } from "./wbi";
import {
  EnvelopeSchema,
  NavSchema,
  PlayUrlSchema,
  type SubtitleLine,
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

export const DEFAULT_API_BASE = "https://api.bilibili.com";
export const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
};
// Subtitle files live on Bilibili's CDN; the cookie must not go anywhere else.
const COOKIE_HOSTS = ["bilibili.com", "hdslb.com"];
const PREFERRED_LANGUAGES = ["zh-Hans", "zh-CN", "ai-zh"];

export interface Session {
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
    loadSubtitles(session, video, cid),
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

/** The player endpoints that list subtitles: the signed-path one first, then the older one. */
const PLAYER_PATHS = ["/x/player/wbi/v2", "/x/player/v2"];

async function loadSubtitles(session: Session, video: { bvid: string; aid?: number | null }, cid: number | undefined): Promise<Subtitles> {
  if (!cid) return { kind: "failed" };
  let outcome: Subtitles = { kind: "failed" };
  let fileFailed = false;
  for (const path of PLAYER_PATHS) {
    const data = await optional(session, () => apiData(session, path, { bvid: video.bvid, cid: String(cid) }, true));
    const player = PlayerSchema.safeParse(data);
    if (data === undefined || !player.success) continue;
    // The player API has been seen answering with another video's subtitles: those are not this video's words.
    const tracks = (player.data.subtitle?.subtitles ?? []).filter((track) => subtitleBelongs(track.subtitle_url, video.aid ?? player.data.aid ?? undefined, cid));
    const track = pickTrack(tracks);
    if (!track) {
      // A track whose file would not load is still the better reason to give.
      if (!fileFailed) outcome = session.cookie ? { kind: "none" } : { kind: "login-required" };
      continue;
    }
    const lines = await loadSubtitleFile(session, track);
    if (lines) return { kind: "track", label: track.lan, lines };
    fileFailed = true;
    outcome = { kind: "failed" };
  }
  return outcome;
}

/**
 * AI subtitle files are named for their video (`…/ai_subtitle/prod/<aid><cid><hash>`): one named
 * for another aid/cid is refused. Other files carry no such name and are taken as listed.
 */
export function subtitleBelongs(url: string, aid: number | undefined, cid: number): boolean {
  const name = /\/ai_subtitle\/prod\/(\d+)/.exec(url)?.[1];
  if (!name) return true;
  return aid === undefined ? name.includes(String(cid)) : name.startsWith(`${aid}${cid}`);
}

async function loadSubtitleFile(session: Session, track: SubtitleTrack): Promise<SubtitleLine[] | undefined> {
  const fileUrl = parseHttpUrl(track.subtitle_url.startsWith("//") ? `https:${track.subtitle_url}` : track.subtitle_url);
  if (!fileUrl) return undefined;
  const headers: Record<string, string> = { ...BROWSER_HEADERS, Referer: "https://www.bilibili.com/" };
  if (session.cookie && hostMatches(fileUrl.hostname, COOKIE_HOSTS)) headers.Cookie = session.cookie;
  const file = await optional(session, () => session.fetcher(fileUrl.toString(), { headers, signal: session.signal }));
  if (!file || file.status < 200 || file.status >= 300) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(file.body);
  } catch {
    return undefined;
  }
  const parsed = SubtitleBodySchema.safeParse(body);
  return parsed.success && parsed.data.body.length > 0 ? parsed.data.body : undefined;
}

/**
 * Where the part's sound is: the lowest-bitrate DASH audio stream of `x/player/wbi/playurl`
 * (WBI-signed, as Bilibili's own player asks), else its smallest MP4. Stream addresses expire
 * within hours, so this is asked when the transcription starts.
 */
export async function locateBilibiliAudio(
  part: { bvid: string; cid: number },
  fetcher: Fetcher,
  options: BilibiliFetchOptions = {},
  signal?: AbortSignal,
): Promise<MediaLocation> {
  const session: Session = { fetcher, apiBase: (options.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, ""), cookie: sessdataCookie(options.sessdata), signal };
  const keys = await wbiKeys(session);
  const params = signWbi({ bvid: part.bvid, cid: String(part.cid), fnval: "16", fnver: "0", fourk: "0", qn: "16" }, keys, Math.round(Date.now() / 1000));
  const answer = PlayUrlSchema.safeParse(await apiData(session, "/x/player/wbi/playurl", params, true));
  if (!answer.success) throw formatChanged();
  const audio = [...(answer.data.dash?.audio ?? [])].sort((a, b) => (a.bandwidth ?? Infinity) - (b.bandwidth ?? Infinity))[0];
  const candidates = audio ? [audio.baseUrl, audio.base_url, ...(audio.backupUrl ?? []), ...(audio.backup_url ?? [])] : [answer.data.durl?.[0]?.url];
  const urls = candidates.filter((candidate): candidate is string => Boolean(candidate));
  // P2P edge caches (mcdn.bilivideo.cn:4483, …) listen on ports imports do not reach: a mirror on the default port first.
  const url = urls.find((candidate) => URL.parse(candidate)?.port === "") ?? urls[0];
  if (!url) throw new ImportError("Bilibili lists no audio stream for this video.", { permanent: true });
  // Bilibili's CDN refuses a stream request without the Referer of its own pages.
  return { url, headers: { ...BROWSER_HEADERS, Referer: `https://www.bilibili.com/video/${part.bvid}/`, Origin: "https://www.bilibili.com" } };
}

/** The WBI keys, from the file names of `nav`'s `wbi_img` (answered with code -101 when logged out, data and all). */
export async function wbiKeys(session: Session): Promise<string> {
  const headers: Record<string, string> = { ...BROWSER_HEADERS, Accept: "application/json", Referer: "https://www.bilibili.com/" };
  if (session.cookie) headers.Cookie = session.cookie;
  const page = await session.fetcher(`${session.apiBase}/x/web-interface/nav`, { headers, signal: session.signal });
  if (page.status === 412) throw rateLimited();
  const failure = httpStatusError(page.status, { site: "Bilibili", item: "video" });
  if (failure) throw failure;
  let json: unknown;
  try {
    json = JSON.parse(page.body);
  } catch {
    throw new ImportError("Bilibili gave an unreadable answer; the import will be retried.", { permanent: false });
  }
  const nav = NavSchema.safeParse(json);
  if (!nav.success) throw formatChanged();
  const name = (url: string) => url.slice(url.lastIndexOf("/") + 1).split(".")[0] ?? "";
  return mixinKey(name(nav.data.data.wbi_img.img_url) + name(nav.data.data.wbi_img.sub_url));
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

export function sessdataCookie(sessdata: string | undefined): string | undefined {
  const value = sessdata?.trim().replace(/^SESSDATA=/, "");
  return value ? `SESSDATA=${value}` : undefined;
}

function formatChanged(): ImportError {
  return new ImportError(
    "Bilibili's answer was not in the expected format, so the video could not be read. Paste the video page's HTML source or its text as `content` instead.",
    { permanent: true },
  );
}
