import { decodeHTML, decodeHTMLAttribute, escapeUTF8 } from "entities";

/**
 * HTML character references, decoded and written the way browsers read them (the `entities`
 * package carries the full HTML5 table): every module that turns HTML into text uses these.
 */

/** Text with its HTML entities decoded (`&eacute;` → é, `&#x4e2d;` → 中, `&amp;amp;` → `&amp;`). */
export function decodeHtmlEntities(text: string): string {
  return decodeHTML(text);
}

/** An attribute value (a URL) decoded as in an attribute: `?a=1&copy=2` keeps its `&copy`. */
export function decodeHtmlAttribute(value: string): string {
  return decodeHTMLAttribute(value);
}

/** Text made safe to place in HTML, inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return escapeUTF8(text);
}
