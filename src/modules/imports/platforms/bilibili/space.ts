import { randomUUID } from "node:crypto";
import { z } from "zod";
import { httpStatusError, ImportError } from "../../import-error";
import { hostMatches, parseHttpUrl } from "../short-links";
import type { Fetcher } from "../types";
import { BROWSER_HEADERS, type BilibiliFetchOptions, DEFAULT_API_BASE, sessdataCookie, type Session, wbiKeys } from "./fetch";
import { signWbi } from "./wbi";
import { videoLink } from "./video-links";

/** How many of an uploader's newest videos one request lists (the API allows up to 50). */
const PAGE_SIZE = 30;

/** `data` of /x/space/wbi/arc/search: the uploader's videos, newest first with `order=pubdate`. */
const SpaceSchema = z.object({
  list: z.object({
    vlist: z
      .array(
        z.object({
          bvid: z.string(),
          title: z.string(),
          description: z.string().nullish(),
          created: z.number().nullish(),
          author: z.string().nullish(),
          mid: z.number().nullish(),
          pic: z.string().nullish(),
          length: z.string().nullish(),
        }),
      )
      .nullish(),
  }),
});

export interface SpaceVideo {
  bvid: string;
  url: string;
  title: string;
  description: string | null;
  /** ISO 8601 UTC. */
  publishedAt: string | null;
  author: string | null;
}

/** The uploader's id in a space address: `https://space.bilibili.com/<mid>` (any path after it), or `m.bilibili.com/space/<mid>`. */
export function spaceMidOf(url: string): string | undefined {
  const parsed = parseHttpUrl(url);
  if (!parsed) return undefined;
  if (hostMatches(parsed.hostname, ["space.bilibili.com"])) return /^\/(\d{1,19})(?:[/?#]|$)/.exec(parsed.pathname)?.[1];
  if (hostMatches(parsed.hostname, ["m.bilibili.com"])) return /^\/space\/(\d{1,19})(?:[/?#]|$)/.exec(parsed.pathname)?.[1];
  return undefined;
}

export const spaceUrl = (mid: string) => `https://space.bilibili.com/${mid}`;

/**
 * An uploader's newest videos through the WBI-signed space API (`x/space/wbi/arc/search`), asked
 * as Bilibili's own space page asks: the uploader's space as Referer, a browser User-Agent and a
 * `buvid3` cookie (what a visitor who is not logged in carries). A refusal (`code` ≠ 0) is an
 * ImportError: risk control (-352) and too many requests (-799) are transient.
 */
export async function fetchSpaceVideos(mid: string, fetcher: Fetcher, options: BilibiliFetchOptions = {}, signal?: AbortSignal): Promise<SpaceVideo[]> {
  const visitor = `buvid3=${randomUUID().toUpperCase()}${String(Math.floor(Math.random() * 100_000)).padStart(5, "0")}infoc`;
  const sessdata = sessdataCookie(options.sessdata);
  const session: Session = { fetcher, apiBase: (options.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, ""), cookie: sessdata ? `${visitor}; ${sessdata}` : visitor, signal };
  const keys = await wbiKeys(session);
  const params = signWbi({ mid, pn: "1", ps: String(PAGE_SIZE), order: "pubdate" }, keys, Math.round(Date.now() / 1000));
  const page = await fetcher(`${session.apiBase}/x/space/wbi/arc/search?${new URLSearchParams(params)}`, {
    headers: { ...BROWSER_HEADERS, Accept: "application/json, text/plain, */*", Referer: `${spaceUrl(mid)}/`, Origin: "https://space.bilibili.com", Cookie: session.cookie! },
    signal,
  });
  if (page.status === 412) throw riskControl();
  const failure = httpStatusError(page.status, { site: "Bilibili", item: "space" });
  if (failure) throw failure;
  let json: unknown;
  try {
    json = JSON.parse(page.body);
  } catch {
    throw new ImportError("Bilibili gave an unreadable answer for this space; it will be tried again.", { permanent: false });
  }
  const envelope = z.object({ code: z.number(), message: z.string().nullish(), data: z.unknown().optional() }).safeParse(json);
  if (!envelope.success) throw formatChanged();
  if (envelope.data.code !== 0) throw spaceError(envelope.data.code);
  const data = SpaceSchema.safeParse(envelope.data.data);
  if (!data.success) throw formatChanged();
  return (data.data.list.vlist ?? []).map((video) => ({
    bvid: video.bvid,
    url: videoLink(video.bvid),
    title: video.title,
    description: video.description?.trim() || null,
    publishedAt: video.created ? new Date(video.created * 1000).toISOString() : null,
    author: video.author?.trim() || null,
  }));
}

function spaceError(code: number): ImportError {
  switch (code) {
    case -352:
    case -412:
      return riskControl();
    case -799:
      return new ImportError("Bilibili says too many requests were made (-799); the space will be tried again later.", { permanent: false });
    case -404:
    case -626:
      return new ImportError("Bilibili says this user does not exist: check the space's address.", { permanent: true });
    case -400:
      return new ImportError("Bilibili rejected the request for this space as invalid (-400): check the space's address.", { permanent: true });
    default:
      return new ImportError(`Bilibili refused to list this space's videos (error ${code}).`, { permanent: false });
  }
}

function riskControl(): ImportError {
  return new ImportError("Bilibili's risk control refused the request (-352); the space will be tried again later.", { permanent: false });
}

function formatChanged(): ImportError {
  return new ImportError("Bilibili's answer for this space was not in the expected format.", { permanent: true });
}
