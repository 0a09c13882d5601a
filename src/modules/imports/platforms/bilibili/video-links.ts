import { hostMatches, parseHttpUrl } from "../short-links";

export const BILIBILI_HOSTS = ["bilibili.com", "b23.tv", "bili2233.cn"] as const;
export const BILIBILI_SHORT_HOSTS = ["b23.tv", "bili2233.cn"] as const;

/** Which video a URL names: by BV id or by numeric av id, and which part (`?p=`, 1-based). */
export type VideoRef = ({ bvid: string } | { aid: number }) & { part: number };

const BVID = /(?:^|\/)(BV1[0-9A-Za-z]{9})(?:[/?#]|$)/;
const AVID = /(?:^|\/)av(\d{1,19})(?:[/?#]|$)/i;

export function videoRefFromUrl(url: string | URL): VideoRef | undefined {
  const parsed = typeof url === "string" ? parseHttpUrl(url) : url;
  if (!parsed || !hostMatches(parsed.hostname, ["bilibili.com"])) return undefined;
  const partParam = Number.parseInt(parsed.searchParams.get("p") ?? "1", 10);
  const part = Number.isInteger(partParam) && partParam > 0 ? partParam : 1;
  const bvid = BVID.exec(parsed.pathname)?.[1] ?? parsed.searchParams.get("bvid") ?? undefined;
  if (bvid && /^BV1[0-9A-Za-z]{9}$/.test(bvid)) return { bvid, part };
  const aid = AVID.exec(parsed.pathname)?.[1] ?? parsed.searchParams.get("aid") ?? undefined;
  if (aid && /^\d+$/.test(aid)) return { aid: Number(aid), part };
  return undefined;
}

export function isShortLink(url: URL): boolean {
  return hostMatches(url.hostname, BILIBILI_SHORT_HOSTS);
}

export function videoLink(bvid: string, part = 1): string {
  return `https://www.bilibili.com/video/${bvid}${part > 1 ? `?p=${part}` : ""}`;
}
