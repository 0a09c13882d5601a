import { httpStatusError, ImportError } from "../../import-error";
import { followShortLink, hostMatches, parseHttpUrl } from "../short-links";
import type { Fetcher, ImportedDocument } from "../types";
import { parseDouyinPage } from "./parse";
import {
  DOUYIN_HOSTS,
  DOUYIN_SHORT_HOSTS,
  isSharePage,
  isShortLink,
  type PostRef,
  postLink,
  postRefFromUrl,
} from "./post-links";

export interface DouyinFetchOptions {
  /** Where the share pages live; a test points it at a fixture server. */
  shareBase?: string;
}

const DEFAULT_SHARE_BASE = "https://www.iesdouyin.com";
// The share page is rendered with its data only for mobile browsers.
const IPHONE_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "Accept-Language": "zh-CN,zh-Hans;q=0.9",
};

/**
 * Imports a post through the unsigned share page (`/share/video/{id}`), following a v.douyin.com
 * short link first; douyin.com's own pages and API need signed requests.
 */
export async function fetchDouyinPost(
  url: string,
  fetcher: Fetcher,
  options: DouyinFetchOptions = {},
  signal?: AbortSignal,
): Promise<ImportedDocument> {
  const parsed = parseHttpUrl(url);
  if (!parsed || !hostMatches(parsed.hostname, DOUYIN_HOSTS)) throw notAPostLink();

  let ref: PostRef | undefined;
  if (isShortLink(parsed)) {
    const landed = await followShortLink(parsed.toString(), fetcher, {
      platform: "Douyin",
      shortHosts: DOUYIN_SHORT_HOSTS,
      headers: IPHONE_HEADERS,
      signal,
    });
    ref = postRefFromUrl(landed.url);
    if (!ref) {
      throw new ImportError(
        "This Douyin short link does not lead to a video or image post (it may have expired). Copy the link again from the app's share menu.",
        { permanent: true },
      );
    }
    // The short link usually lands on the share page itself: no need to ask twice.
    if (isSharePage(landed.url) && landed.status === 200 && landed.body.includes("_ROUTER_DATA")) {
      return parseDouyinPage(landed.body, postLink(ref));
    }
  } else {
    ref = postRefFromUrl(parsed);
    if (!ref) throw notAPostLink();
  }

  const shareBase = (options.shareBase ?? DEFAULT_SHARE_BASE).replace(/\/+$/, "");
  const page = await fetcher(`${shareBase}/share/${ref.kind}/${ref.id}/`, { headers: IPHONE_HEADERS, signal });
  const failure = httpStatusError(page.status, { site: "Douyin", item: "post" });
  if (failure) throw failure;
  return parseDouyinPage(page.body, postLink(ref));
}

function notAPostLink(): ImportError {
  return new ImportError(
    "This is not a Douyin post link: use https://www.douyin.com/video/<id>, a /note/<id> link, or a v.douyin.com short link.",
    { permanent: true },
  );
}
