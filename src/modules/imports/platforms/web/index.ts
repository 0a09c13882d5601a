import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
import { fetchWebPage } from "./fetch";
import { parseWebPage } from "./parse";

export const webImporter: PlatformImporter = {
  platform: "web",
  hosts: [],
  // A browser sends the article's address; sites that refuse hotlinks accept their own pages.
  imageReferer: (pageUrl) => (pageUrl && /^https?:/i.test(pageUrl) ? pageUrl : undefined),
  fetchDocument: fetchWebPage,
  parsePasted(content, url) {
    return looksLikeHtml(content) ? parseWebPage(content, url) : documentFromPastedText(content, url);
  },
};
