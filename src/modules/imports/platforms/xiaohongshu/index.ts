import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
import { fetchXiaohongshuNote } from "./fetch";
import { XIAOHONGSHU_HOSTS } from "./note-links";
import { parseXiaohongshuPage } from "./parse";

export const xiaohongshuImporter: PlatformImporter = {
  platform: "xiaohongshu",
  hosts: [...XIAOHONGSHU_HOSTS],
  // The sns-webpic CDN serves pictures to the site's own pages.
  imageReferer: () => "https://www.xiaohongshu.com/",
  fetchDocument: fetchXiaohongshuNote,
  parsePasted(content, url) {
    return looksLikeHtml(content) || content.includes("window.__INITIAL_STATE__")
      ? parseXiaohongshuPage(content, url)
      : documentFromPastedText(content, url);
  },
};
