import { hostMatches, parseHttpUrl } from "../short-links";

export const DOUYIN_HOSTS = ["douyin.com", "iesdouyin.com"] as const;
export const DOUYIN_SHORT_HOSTS = ["v.douyin.com"] as const;

/** A Douyin post: a video, or an image post ("note"/"slides"), by its 19-digit id. */
export interface PostRef {
  id: string;
  kind: "video" | "note";
}

const POST_PATH = /\/(video|note|slides)\/(\d{19})(?:[/?#]|$)/;
const ANY_ID = /(?:^|\D)(\d{19})(?:\D|$)/;

export function postRefFromUrl(url: string | URL): PostRef | undefined {
  const parsed = typeof url === "string" ? parseHttpUrl(url) : url;
  if (!parsed || !hostMatches(parsed.hostname, DOUYIN_HOSTS)) return undefined;
  const path = POST_PATH.exec(parsed.pathname);
  if (path?.[1] && path[2]) return { id: path[2], kind: path[1] === "video" ? "video" : "note" };
  // douyin.com/discover?modal_id=… and friends open a post in an overlay.
  const modal = parsed.searchParams.get("modal_id") ?? parsed.searchParams.get("aweme_id");
  if (modal && /^\d{19}$/.test(modal)) return { id: modal, kind: "video" };
  const anywhere = ANY_ID.exec(parsed.pathname)?.[1];
  return anywhere ? { id: anywhere, kind: "video" } : undefined;
}

export function isShortLink(url: URL): boolean {
  return hostMatches(url.hostname, DOUYIN_SHORT_HOSTS);
}

/** True for the server-rendered share page (www.iesdouyin.com/share/video/{id}). */
export function isSharePage(url: string): boolean {
  const parsed = parseHttpUrl(url);
  return !!parsed && hostMatches(parsed.hostname, ["iesdouyin.com"]) && parsed.pathname.startsWith("/share/");
}

export function postLink(ref: PostRef): string {
  return `https://www.douyin.com/${ref.kind}/${ref.id}`;
}
