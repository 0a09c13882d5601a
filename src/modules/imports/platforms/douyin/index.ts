import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
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
    parsePasted(content, url) {
      return looksLikeHtml(content) || /RENDER_DATA|_ROUTER_DATA/.test(content)
        ? parseDouyinPage(content, url)
        : documentFromPastedText(content, url);
    },
  };
}

export const douyinImporter = createDouyinImporter();
