import { decodeHtmlAttribute } from "../../../../text/html-entities";

export const WECHAT_HOST = "mp.weixin.qq.com";

/**
 * An mp.weixin.qq.com URL over https without its `#rd` fragment, or null for anything else.
 * Links copied out of page source carry `&amp;` instead of `&`.
 */
export function normalizeWechatUrl(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(decodeHtmlAttribute(raw.trim()).replace(/\\x26/g, "&"));
  } catch {
    return null;
  }
  if (url.hostname !== WECHAT_HOST || (url.protocol !== "https:" && url.protocol !== "http:")) return null;
  url.protocol = "https:";
  url.hash = "";
  return url.href;
}

/** WeChat's anti-bot check redirects to `/mp/wappoc_appmsgcaptcha?…` and similar paths. */
export function isCaptchaUrl(raw: string | undefined): boolean {
  if (!raw) return false;
  try {
    return new URL(raw).pathname.toLowerCase().includes("captcha");
  } catch {
    return false;
  }
}

/**
 * A WeChat image address fit for Markdown: `&amp;` decoded, protocol-relative and plain-http
 * links to WeChat's CDNs upgraded to https (they serve both), anything else non-http(s) refused.
 */
export function wechatImageUrl(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let value = decodeHtmlAttribute(raw.trim()).replace(/\\x26/g, "&");
  if (value.startsWith("//")) value = `https:${value}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (/(^|\.)(qpic\.cn|qlogo\.cn|weixin\.qq\.com|wx\.qq\.com)$/.test(url.hostname)) url.protocol = "https:";
  return url.href;
}
