import { hostMatches, parseHttpUrl } from "../short-links";

export const XIAOHONGSHU_HOSTS = ["xiaohongshu.com", "xhslink.com", "xhslink.cn"] as const;
export const XIAOHONGSHU_SHORT_HOSTS = ["xhslink.com", "xhslink.cn"] as const;

const NOTE_ID = "[0-9a-f]{24}";
const NOTE_PATHS = [
  new RegExp(`^/explore/(${NOTE_ID})(?:/|$)`, "i"),
  new RegExp(`^/discovery/item/(${NOTE_ID})(?:/|$)`, "i"),
  new RegExp(`^/user/profile/[^/]+/(${NOTE_ID})(?:/|$)`, "i"),
];

/** The 24-hex note id of a xiaohongshu.com note URL. */
export function noteIdFromUrl(url: string | URL): string | undefined {
  const parsed = typeof url === "string" ? parseHttpUrl(url) : url;
  if (!parsed || !hostMatches(parsed.hostname, ["xiaohongshu.com"])) return undefined;
  for (const pattern of NOTE_PATHS) {
    const match = pattern.exec(parsed.pathname);
    if (match?.[1]) return match[1].toLowerCase();
  }
  return undefined;
}

export function isShortLink(url: URL): boolean {
  return hostMatches(url.hostname, XIAOHONGSHU_SHORT_HOSTS);
}

/** Where a request for a note ended up after Xiaohongshu's redirects. */
export type Landing =
  | { kind: "note"; noteId: string }
  | { kind: "captcha" }
  | { kind: "not-found" }
  | { kind: "login" }
  | { kind: "home" }
  | { kind: "elsewhere" };

export function classifyLanding(finalUrl: string): Landing {
  const url = parseHttpUrl(finalUrl);
  if (!url) return { kind: "elsewhere" };
  const noteId = noteIdFromUrl(url);
  if (noteId) return { kind: "note", noteId };
  const path = url.pathname.toLowerCase();
  if (path.startsWith("/website-login/captcha")) return { kind: "captcha" };
  if (path === "/404" || path.startsWith("/404/")) return { kind: "not-found" };
  if (path.startsWith("/login") || path.startsWith("/website-login")) return { kind: "login" };
  if (hostMatches(url.hostname, ["xiaohongshu.com"]) && /^\/(?:explore\/?)?$/.test(path)) {
    return { kind: "home" };
  }
  return { kind: "elsewhere" };
}

/** A link that opens the note again: the canonical address, keeping the signature when known. */
export function noteLink(noteId: string, from?: string): string {
  const link = new URL(`https://www.xiaohongshu.com/explore/${noteId}`);
  const source = from ? parseHttpUrl(from) : undefined;
  if (source && noteIdFromUrl(source) === noteId) {
    for (const key of ["xsec_token", "xsec_source"]) {
      const value = source.searchParams.get(key);
      if (value) link.searchParams.set(key, value);
    }
  }
  return link.toString();
}
