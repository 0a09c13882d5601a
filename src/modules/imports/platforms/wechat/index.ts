import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { PlatformImporter } from "../types";
import { WECHAT_HOST } from "./article-url";
import { fetchWechatArticle } from "./fetch";
import { parseWechatPage } from "./parse";

export const wechatImporter: PlatformImporter = {
  platform: "wechat",
  hosts: [WECHAT_HOST],
  // mmbiz.qpic.cn shows other sites a "from WeChat" placeholder; its own article pages get the picture.
  imageReferer: () => "https://mp.weixin.qq.com/",
  fetchDocument: fetchWechatArticle,
  parsePasted(content, url) {
    return looksLikeHtml(content) ? parseWechatPage(content, url) : documentFromPastedText(content, url);
  },
};
