import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
import { fetchWebPage } from "./fetch";
import { parseWebPage } from "./parse";

export const webImporter: PlatformImporter = {
  platform: "web",
  hosts: [],
  fetchDocument: fetchWebPage,
  parsePasted(content, url) {
    return looksLikeHtml(content) ? parseWebPage(content, url) : documentFromPastedText(content, url);
  },
};
