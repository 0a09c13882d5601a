import { httpStatusError, ImportError } from "../../import-error";
import type { Fetcher, ImportedDocument } from "../types";
import { normalizeWechatUrl } from "./article-url";
import { parseWechatPage } from "./parse";

/** A phone browser in China: what an article link shared in chat is normally opened with. */
const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
};

/** Downloads an mp.weixin.qq.com article through the injected fetcher and parses it. */
export async function fetchWechatArticle(url: string, fetcher: Fetcher, signal?: AbortSignal): Promise<ImportedDocument> {
  const articleUrl = normalizeWechatUrl(url);
  if (!articleUrl) {
    throw new ImportError("This is not a WeChat article link: it should start with https://mp.weixin.qq.com/.", {
      permanent: true,
    });
  }

  let page;
  try {
    page = await fetcher(articleUrl, { headers: BROWSER_HEADERS, signal });
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError("Could not download the WeChat article (network error or timeout). Try again later.", {
      permanent: false,
      cause: error,
    });
  }

  const failure = httpStatusError(page.status, { site: "WeChat", item: "article" });
  if (failure) throw failure;
  const document = parseWechatPage(page.body, page.url || articleUrl);
  // A redirect may land elsewhere; the link the user gave is the better source when the page names none.
  return { ...document, sourceUrl: document.sourceUrl ?? articleUrl };
}
