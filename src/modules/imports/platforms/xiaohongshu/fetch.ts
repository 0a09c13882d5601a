import { httpStatusError } from "../../import-error";
import { followShortLink, parseHttpUrl } from "../short-links";
import type { FetchedPage, Fetcher, ImportedDocument } from "../types";
import {
  captchaPage,
  loginRequired,
  notANoteLink,
  notFoundPage,
  redirectedHome,
} from "./errors";
import { classifyLanding, isShortLink, noteIdFromUrl, XIAOHONGSHU_SHORT_HOSTS } from "./note-links";
import { parseXiaohongshuPage } from "./parse";

// Xiaohongshu serves the server-rendered note (with its state script) to desktop browsers.
const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
};

/** HTTP statuses Xiaohongshu answers with when it wants a captcha solved (MediaCrawler). */
const CAPTCHA_STATUSES = new Set([461, 471]);

/**
 * Fetches a note page (or follows an xhslink.com short link to one) and reads it. Xiaohongshu only
 * serves notes through signed links (`xsec_token`); everything else lands on the home page, a
 * look-alike 404 or a captcha, each of which becomes a permanent ImportError.
 */
export async function fetchXiaohongshuNote(
  url: string,
  fetcher: Fetcher,
  signal?: AbortSignal,
): Promise<ImportedDocument> {
  const requested = parseHttpUrl(url);
  if (!requested) throw notANoteLink();

  let page: FetchedPage;
  if (isShortLink(requested)) {
    page = await followShortLink(requested.toString(), fetcher, {
      platform: "Xiaohongshu",
      shortHosts: XIAOHONGSHU_SHORT_HOSTS,
      headers: BROWSER_HEADERS,
      signal,
    });
  } else {
    if (!noteIdFromUrl(requested)) throw notANoteLink();
    page = await fetcher(requested.toString(), { headers: BROWSER_HEADERS, signal });
  }

  if (CAPTCHA_STATUSES.has(page.status)) throw captchaPage();
  const failure = httpStatusError(page.status, { site: "Xiaohongshu", item: "note" });
  if (failure && !failure.permanent) throw failure;
  const landing = classifyLanding(page.url);
  switch (landing.kind) {
    case "captcha":
      throw captchaPage();
    case "not-found":
      throw notFoundPage();
    case "login":
      throw loginRequired();
    case "home":
      throw redirectedHome();
    case "elsewhere":
      throw notANoteLink();
  }
  if (failure) throw failure;
  return parseXiaohongshuPage(page.body, page.url);
}
