import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
import { ImportError } from "../../import-error";
import { type DouyinFetchOptions, fetchDouyinPost } from "./fetch";
import { parseDouyinPage } from "./parse";
import { DOUYIN_HOSTS } from "./post-links";

export type DouyinImporterOptions = DouyinFetchOptions;

export function createDouyinImporter(options: DouyinImporterOptions = {}): PlatformImporter {
  return {
    platform: "douyin",
    hosts: [...DOUYIN_HOSTS],
    // The douyinpic CDN signs URLs and checks where they are shown; douyin.com is where.
    imageReferer: () => "https://www.douyin.com/",
    fetchDocument: (url, fetcher, signal) => fetchDouyinPost(url, fetcher, options, signal),
    async locateMedia(source) {
      if (!("url" in source)) throw new ImportError("This media cannot be fetched from Douyin.", { permanent: true });
      const headers: Record<string, string> = {};
      if (source.referer) headers.Referer = source.referer;
      if (source.userAgent) headers["User-Agent"] = source.userAgent;
      return { url: source.url, headers };
    },
    parsePasted(content, url) {
      return looksLikeHtml(content) || /RENDER_DATA|_ROUTER_DATA/.test(content)
        ? parseDouyinPage(content, url)
        : documentFromPastedText(content, url);
    },
  };
}

export const douyinImporter = createDouyinImporter();
