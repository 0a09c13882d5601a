import { httpStatusError, ImportError } from "../import-error";
import type { FetchedPage, Fetcher } from "./types";

/** True when `hostname` is one of `suffixes` or a subdomain of one. */
export function hostMatches(hostname: string, suffixes: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return suffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
}

/** The URL parsed, or undefined for text that is not an http(s) URL. */
export function parseHttpUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export interface ShortLinkRequest {
  /** Platform name for messages, e.g. "Bilibili". */
  platform: string;
  /** Hosts of the platform's short-link service, e.g. ["b23.tv"]. */
  shortHosts: readonly string[];
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Follows a share short link (xhslink.com, b23.tv, v.douyin.com) through the fetcher, which follows
 * the redirects itself, and returns the page it landed on (any status; `url` is the final address).
 */
export async function followShortLink(
  url: string,
  fetcher: Fetcher,
  request: ShortLinkRequest,
): Promise<FetchedPage> {
  const page = await fetcher(url, { headers: request.headers, signal: request.signal });
  const landed = parseHttpUrl(page.url);
  if (landed && !hostMatches(landed.hostname, request.shortHosts)) return page;
  const failure = httpStatusError(page.status, { site: `${request.platform}'s short-link service`, item: "link" });
  if (failure && !failure.permanent) throw failure;
  throw new ImportError(
    `This ${request.platform} short link did not lead to any content: it may have expired or been mistyped. Copy the link again from the app's share menu.`,
    { permanent: true },
  );
}
