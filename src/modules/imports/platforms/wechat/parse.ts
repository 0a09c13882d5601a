import { assertReadableNesting, htmlToMarkdown, parseHtmlDocument } from "../../html-to-markdown";
import { importedTitle } from "../../../notes/note-text";
import { titleFromFirstLine } from "../../pasted-text";
import type { ImportedDocument } from "../types";
import { cleanArticleBody } from "./article-body";
import { isCaptchaUrl, normalizeWechatUrl } from "./article-url";
import { blockedByWechat, explainFailurePage } from "./failure-page";
import { readScriptAssignments, stringValue } from "../page-scripts";
import { isoFromUnixSeconds } from "./publish-time";
import { readSharePage, scriptText, type ScriptValues, type WechatFields } from "./share-page";

const SHARE_PAGE_TYPES = new Set(["8", "10"]);
const MAX_TAGS = 16;

function text(element: Element | null): string | undefined {
  const value = element?.textContent?.replace(/\s+/g, " ").trim();
  return value ? value : undefined;
}

function meta(document: Document, selector: string): string | undefined {
  const value = document.querySelector(selector)?.getAttribute("content")?.trim();
  return value ? value : undefined;
}

/** The script variables WeChat pages are read from. */
const SCRIPT_NAMES = [
  "msg_title",
  "nickname",
  "author",
  "ct",
  "create_time",
  "item_show_type",
  "msg_link",
  "cgiDataNew",
  "picture_page_info_list",
];

function scriptString(scripts: ScriptValues, name: string): string | undefined {
  return scriptText(scripts.get(name))?.replace(/\s+/g, " ");
}

/** Hashtag topics under the article (`#js_tags`): `#AI编程` chips, without the `#`. */
function articleTags(document: Document): string[] {
  const area = document.querySelector("#js_tags");
  if (!area) return [];
  const chips = Array.from(area.querySelectorAll(".article-tag__item"));
  const raw = chips.length > 0 ? chips.map((chip) => chip.textContent ?? "") : (area.textContent ?? "").match(/#[^#\s]+/g) ?? [];
  const tags = raw.map((tag) => tag.replace(/\s+/g, " ").trim().replace(/^#+/, "").trim()).filter((tag) => tag && tag.length <= 64);
  return [...new Set(tags)].slice(0, MAX_TAGS);
}

function hasBody(content: Element | null): content is Element {
  return !!content && (!!content.textContent?.trim() || content.querySelector("img") !== null);
}

/** A normal article (item_show_type 0): metadata around `#img-content`, body in `div#js_content`. */
function readArticle(document: Document, scripts: ScriptValues, content: Element): WechatFields {
  return {
    title:
      text(document.querySelector("#activity-name")) ??
      scriptString(scripts, "msg_title") ??
      meta(document, 'meta[property="og:title"]'),
    account:
      text(document.querySelector("#js_name")) ??
      scriptString(scripts, "nickname") ??
      text(document.querySelector(".wx_follow_nickname")),
    author:
      scriptString(scripts, "author") ??
      meta(document, 'meta[name="author"]') ??
      text(document.querySelector("#js_author_name")),
    publishedAt:
      isoFromUnixSeconds(stringValue(scripts.get("ct"))) ?? isoFromUnixSeconds(stringValue(scripts.get("create_time"))),
    markdown: htmlToMarkdown(cleanArticleBody(content)),
    tags: articleTags(document),
  };
}

/** "张三 (Account: 某公众号)": the person who wrote it, and the official account that published it. */
function authorLine(author: string | undefined, account: string | undefined): string | undefined {
  const person = author ? importedTitle(author) : undefined;
  const publisher = account ? importedTitle(account) : undefined;
  if (person && publisher && person !== publisher) return `${person} (Account: ${publisher})`;
  if (publisher) return `Account: ${publisher}`;
  return person;
}

function canonicalUrl(document: Document, scripts: ScriptValues, pageUrl: string | undefined): string | undefined {
  return (
    normalizeWechatUrl(meta(document, 'meta[property="og:url"]')) ??
    normalizeWechatUrl(stringValue(scripts.get("msg_link"))) ??
    normalizeWechatUrl(pageUrl) ??
    undefined
  );
}

/**
 * A saved or fetched mp.weixin.qq.com page as a document. `pageUrl` is where the page came from
 * (after redirects). Throws a permanent ImportError for deleted, blocked and article-less pages.
 */
export function parseWechatPage(html: string, pageUrl?: string): ImportedDocument {
  if (isCaptchaUrl(pageUrl)) throw blockedByWechat();

  const document = parseHtmlDocument(html);
  assertReadableNesting(document.documentElement);
  const scripts = readScriptAssignments(document, SCRIPT_NAMES);
  const showType = stringValue(scripts.get("item_show_type"));
  const content = document.querySelector("#js_content");

  let fields = showType !== undefined && SHARE_PAGE_TYPES.has(showType) ? readSharePage(document, scripts) : null;
  if (!fields?.markdown && hasBody(content)) fields = readArticle(document, scripts, content);
  if (!fields?.markdown) fields = readSharePage(document, scripts);
  if (!fields?.markdown) throw explainFailurePage(document);

  return {
    title: importedTitle(fields.title ?? "") || titleFromFirstLine(fields.markdown) || "Untitled WeChat article",
    markdown: fields.markdown,
    tags: fields.tags,
    sourceUrl: canonicalUrl(document, scripts, pageUrl),
    author: authorLine(fields.author, fields.account),
    publishedAt: fields.publishedAt,
  };
}
