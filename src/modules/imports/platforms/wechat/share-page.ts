import { htmlToMarkdown } from "../../html-to-markdown";
import { wechatImageUrl } from "./article-url";
import {
  arrayItems,
  assignedString,
  assignedValue,
  decodeHtmlEntities,
  isoFromUnixSeconds,
  propertyString,
  propertyValue,
} from "./script-values";

/** What a WeChat page yields before it becomes an ImportedDocument. */
export interface WechatFields {
  title?: string;
  account?: string;
  author?: string;
  publishedAt?: string;
  markdown: string;
  tags: string[];
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
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

function decoded(value: string | undefined): string | undefined {
  const text = value === undefined ? undefined : decodeHtmlEntities(value).trim();
  return text ? text : undefined;
}

function objectProperty(objectSource: string | undefined, key: string): string | undefined {
  if (!objectSource) return undefined;
  const value = propertyValue(objectSource, key);
  return value?.kind === "literal" ? value.source : undefined;
}

/** Top-level `cdn_url`s of each picture; nested ones (watermark_info, share_cover) are other images. */
function pictureUrls(scripts: string, cgiData: string | undefined): string[] {
  const assigned = assignedValue(scripts, "picture_page_info_list");
  const list = assigned?.kind === "literal" ? assigned.source : objectProperty(cgiData, "picture_page_info_list");
  if (!list) return [];
  const urls = arrayItems(list)
    .map((item) => wechatImageUrl(propertyString(item, "cdn_url")))
    .filter((url): url is string => url !== null);
  return [...new Set(urls)];
}

/**
 * Image-share (item_show_type 8) and text-share (10) pages: no `#js_content`; the post lives in
 * `window.cgiDataNew`, its pictures in `window.picture_page_info_list`, its time in `window.ct`.
 */
export function readSharePage(document: Document, scripts: string): WechatFields | null {
  const cgiAssigned = assignedValue(scripts, "cgiDataNew");
  const cgiData = cgiAssigned?.kind === "literal" ? cgiAssigned.source : undefined;
  const textPage = objectProperty(cgiData, "text_page_info");
  const images = pictureUrls(scripts, cgiData);

  const text =
    decoded(cgiData && propertyString(cgiData, "content_noencode")) ??
    decoded(textPage && propertyString(textPage, "content_noencode")) ??
    decoded(textPage && propertyString(textPage, "content")) ??
    decoded(cgiData && propertyString(cgiData, "desc")) ??
    "";
  if (!cgiData && images.length === 0) return null;

  const imageHtml = images.map((src, index) => `<p><img src="${escapeHtml(src)}" alt="图${index + 1}"></p>`).join("");
  const markdown = htmlToMarkdown(textToHtml(text) + imageHtml);

  return {
    title:
      decoded(cgiData && propertyString(cgiData, "title")) ??
      decoded(document.querySelector('meta[property="og:title"]')?.getAttribute("content") ?? undefined) ??
      decoded(assignedString(scripts, "msg_title")),
    account: decoded(cgiData && propertyString(cgiData, "nick_name")) ?? decoded(assignedString(scripts, "nickname")),
    author: decoded(cgiData && propertyString(cgiData, "author")),
    publishedAt:
      isoFromUnixSeconds(assignedString(scripts, "ct")) ??
      isoFromUnixSeconds(cgiData && propertyString(cgiData, "create_time")),
    markdown,
    tags: [],
  };
}
