import { decodeHtmlEntities, escapeHtml } from "../../../../text/html-entities";
import { htmlToMarkdown } from "../../html-to-markdown";
import { stringValue } from "../page-scripts";
import { wechatImageUrl } from "./article-url";
import { isoFromUnixSeconds } from "./publish-time";

/** The literal values a WeChat page's scripts assign, by variable name. */
export type ScriptValues = ReadonlyMap<string, unknown>;

type ScriptObject = Record<string, unknown>;

function scriptObject(value: unknown): ScriptObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as ScriptObject) : undefined;
}

/** What a WeChat page yields before it becomes an ImportedDocument. */
export interface WechatFields {
  title?: string;
  account?: string;
  author?: string;
  publishedAt?: string;
  markdown: string;
  tags: string[];
}

/** Inline markup share-page text may carry (`<a class="wx_img_refer_link">图1</a>`); other `<…>` is text. */
const TEXT_MARKUP = /<\/?(?:a|span|strong|b|em|i|font|p|div)\b[^<>]{0,2000}>/gi;

/** Share-page text is plain text with newlines; it becomes escaped paragraphs. */
function textToHtml(text: string): string {
  const plain = text.replace(/<br\s*\/?>/gi, "\n").replace(TEXT_MARKUP, "");
  return plain
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

/** A script value as text, HTML entities decoded; undefined when absent or blank. */
export function scriptText(value: unknown): string | undefined {
  const raw = stringValue(value);
  // Twice: WeChat escapes some script strings twice (`&amp;quot;`).
  const text = raw === undefined ? undefined : decodeHtmlEntities(decodeHtmlEntities(raw)).trim();
  return text ? text : undefined;
}

/** Top-level `cdn_url`s of each picture; nested ones (watermark_info, share_cover) are other images. */
function pictureUrls(scripts: ScriptValues, cgiData: ScriptObject | undefined): string[] {
  const assigned = scripts.get("picture_page_info_list");
  const list = Array.isArray(assigned) ? assigned : cgiData?.picture_page_info_list;
  if (!Array.isArray(list)) return [];
  const urls = list
    .map((item) => wechatImageUrl(stringValue(scriptObject(item)?.cdn_url)))
    .filter((url): url is string => url !== null);
  return [...new Set(urls)];
}

/**
 * Image-share (item_show_type 8) and text-share (10) pages: no `#js_content`; the post lives in
 * `window.cgiDataNew`, its pictures in `window.picture_page_info_list`, its time in `window.ct`.
 */
export function readSharePage(document: Document, scripts: ScriptValues): WechatFields | null {
  const cgiData = scriptObject(scripts.get("cgiDataNew"));
  const textPage = scriptObject(cgiData?.text_page_info);
  const images = pictureUrls(scripts, cgiData);

  const text =
    scriptText(cgiData?.content_noencode) ??
    scriptText(textPage?.content_noencode) ??
    scriptText(textPage?.content) ??
    scriptText(cgiData?.desc) ??
    "";
  if (!cgiData && images.length === 0) return null;

  const imageHtml = images.map((src, index) => `<p><img src="${escapeHtml(src)}" alt="图${index + 1}"></p>`).join("");
  const markdown = htmlToMarkdown(textToHtml(text) + imageHtml);

  return {
    title:
      scriptText(cgiData?.title) ??
      scriptText(document.querySelector('meta[property="og:title"]')?.getAttribute("content") ?? undefined) ??
      scriptText(scripts.get("msg_title")),
    account: scriptText(cgiData?.nick_name) ?? scriptText(scripts.get("nickname")),
    author: scriptText(cgiData?.author),
    publishedAt:
      isoFromUnixSeconds(stringValue(scripts.get("ct"))) ?? isoFromUnixSeconds(stringValue(cgiData?.create_time)),
    markdown,
    tags: [],
  };
}
