import type { FetchedPage, FetchOptions } from "../platforms/types";
import { withDeadline } from "./deadline";
import { decodeText } from "./decode-text";
import { failure } from "./fetch-errors";
import { DEFAULT_ALLOWED_CONTENT_TYPES, type SafeFetcherOptions, settingsOf } from "./options";
import { headerText, readBody } from "./read-body";
import { followRedirects } from "./redirects";
import { requestHeaders } from "./request-headers";

/** A page read with its validators, its wait and where it moved for good. */
export interface ConditionalAnswer extends FetchedPage {
  /** Where the leading run of permanent redirects (301, 308) ends, when there is one; null otherwise. */
  movedTo: string | null;
  etag: string | null;
  lastModified: string | null;
  /** The `Retry-After` header as sent (seconds or an HTTP date). */
  retryAfter: string | null;
}

export interface ConditionalOptions extends FetchOptions {
  /** The last answer's validators: a server that still has that version answers 304 with no body. */
  etag?: string | null;
  lastModified?: string | null;
  /** A shorter deadline than the fetcher's (a request that must answer within its own). */
  timeoutMs?: number;
}

/** A GET that may answer 304; every status resolves (the caller decides what it means). */
export type ConditionalFetcher = (url: string, options?: ConditionalOptions) => Promise<ConditionalAnswer>;

/** What feeds are served as, besides what pages are. */
export const FEED_CONTENT_TYPES = [
  ...DEFAULT_ALLOWED_CONTENT_TYPES,
  "application/rss+xml",
  "application/atom+xml",
  "application/rdf+xml",
  "application/feed+json",
  "application/x-rss+xml",
  "application/x-atom+xml",
  "text/x-opml",
  "application/octet-stream",
];

/**
 * The import address rules (public addresses, pinned per hop, checked after every redirect), the
 * deadline and the body cap, for a GET that sends the last answer's validators and reports the new
 * ones: a feed reader's fetch.
 */
export function createConditionalFetcher(options: SafeFetcherOptions): ConditionalFetcher {
  const defaults = settingsOf({ allowedContentTypes: FEED_CONTENT_TYPES, ...options });
  return (url, fetchOptions = {}) => {
    const settings = fetchOptions.timeoutMs ? { ...defaults, timeoutMs: Math.min(defaults.timeoutMs, fetchOptions.timeoutMs) } : defaults;
    const headers: Record<string, string> = { ...fetchOptions.headers };
    if (fetchOptions.etag) headers["if-none-match"] = fetchOptions.etag;
    if (fetchOptions.lastModified) headers["if-modified-since"] = fetchOptions.lastModified;
    return withDeadline(settings, url, fetchOptions, () => false, async (signal) => {
      const { hop, response, redirects } = await followRedirects(settings, url, requestHeaders(headers), signal);
      const status = response.statusCode ?? 0;
      const contentType = headerText(response.headers["content-type"]) ?? "";
      let movedTo: string | null = null;
      for (const redirect of redirects) {
        if (redirect.status !== 301 && redirect.status !== 308) break;
        movedTo = redirect.to.href;
      }
      const answer = {
        url: hop.url.href,
        status,
        contentType,
        movedTo,
        etag: headerText(response.headers.etag) ?? null,
        lastModified: headerText(response.headers["last-modified"]) ?? null,
        retryAfter: headerText(response.headers["retry-after"]) ?? null,
      };
      const essence = contentType.split(";")[0]!.trim().toLowerCase();
      // A 304 has no body; an error's body is not read (its status says enough).
      if (status < 200 || status > 299) {
        response.destroy();
        return { ...answer, body: "" };
      }
      if (essence && !settings.allowedContentTypes.includes(essence)) {
        response.destroy();
        const shown = /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(essence) ? essence : "(malformed)";
        throw failure(hop, `unsupported content type ${shown}; a feed is XML or JSON, or a web page that names one`, true);
      }
      const bytes = await readBody(settings, hop, response, signal);
      return { ...answer, body: decodeText(bytes, contentType) };
    });
  };
}
