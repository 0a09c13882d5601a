import { BILIBILI_HOSTS } from "./platforms/bilibili/video-links";
import { DOUYIN_HOSTS } from "./platforms/douyin/post-links";
import { hostMatches, parseHttpUrl } from "./platforms/short-links";
import { WECHAT_HOST } from "./platforms/wechat/article-url";
import { XIAOHONGSHU_HOSTS } from "./platforms/xiaohongshu/note-links";
import type { Platform } from "./schemas";

/** Each platform's hosts (subdomains included), in the order they are tried; anything else is `web`. */
const PLATFORM_HOSTS: readonly (readonly [Platform, readonly string[]])[] = [
  ["wechat", [WECHAT_HOST]],
  ["xiaohongshu", XIAOHONGSHU_HOSTS],
  ["bilibili", BILIBILI_HOSTS],
  ["douyin", DOUYIN_HOSTS],
];

/**
 * The platform a task imports with: the one asked for, or — when omitted or `"auto"` — the one
 * whose host the URL is on (CONTRACT "Import tasks"); content without a URL is `web`.
 */
export function choosePlatform(requested: Platform | "auto" | undefined, url: string | undefined): Platform {
  if (requested !== undefined && requested !== "auto") return requested;
  const parsed = url === undefined ? undefined : parseHttpUrl(url);
  if (!parsed) return "web";
  return PLATFORM_HOSTS.find(([, hosts]) => hostMatches(parsed.hostname, hosts))?.[0] ?? "web";
}
