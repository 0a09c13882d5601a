import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
import { type BilibiliFetchOptions, fetchBilibiliVideo, locateBilibiliAudio } from "./fetch";
import { ImportError } from "../../import-error";
import { BILIBILI_HOSTS } from "./video-links";
import { parseBilibiliVideoPage } from "./video-page";

export type BilibiliImporterOptions = BilibiliFetchOptions;

/** A Bilibili importer; pass `sessdata` (from configuration) to import subtitles. */
export function createBilibiliImporter(options: BilibiliImporterOptions = {}): PlatformImporter {
  return {
    platform: "bilibili",
    hosts: [...BILIBILI_HOSTS],
    // hdslb.com refuses hotlinks from other sites; bilibili.com pages are its own.
    imageReferer: () => "https://www.bilibili.com/",
    fetchDocument: (url, fetcher, signal) => fetchBilibiliVideo(url, fetcher, options, signal),
    async locateMedia(source, fetcher, signal) {
      if ("bilibili" in source) return locateBilibiliAudio(source.bilibili, fetcher, options, signal);
      if ("url" in source) return { url: source.url, headers: source.referer ? { Referer: source.referer } : {} };
      throw new ImportError("This media cannot be fetched from Bilibili.", { permanent: true });
    },
    parsePasted(content, url) {
      return looksLikeHtml(content) || content.includes("window.__INITIAL_STATE__")
        ? parseBilibiliVideoPage(content, url)
        : documentFromPastedText(content, url);
    },
  };
}

/** Without a SESSDATA cookie: videos import without subtitles. */
export const bilibiliImporter = createBilibiliImporter();
