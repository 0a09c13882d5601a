import { wechatImageUrl } from "./article-url";

function replaceTag(element: Element, tagName: string): Element {
  const replacement = element.ownerDocument.createElement(tagName);
  while (element.firstChild) replacement.appendChild(element.firstChild);
  element.replaceWith(replacement);
  return replacement;
}

function paragraphWith(element: Element, text: string, href?: string): void {
  const doc = element.ownerDocument;
  const paragraph = doc.createElement("p");
  if (href) {
    const link = doc.createElement("a");
    link.setAttribute("href", href);
    link.textContent = text;
    paragraph.appendChild(link);
  } else {
    paragraph.textContent = text;
  }
  element.replaceWith(paragraph);
}

/**
 * A copy of `div#js_content` shaped for Markdown: shown (WeChat hides it until its scripts run),
 * lazy images given their real `src`, code line numbers gone, `section` soup made into p/div.
 */
export function cleanArticleBody(content: Element): Element {
  const body = content.cloneNode(true) as Element;
  body.removeAttribute("style");

  for (const junk of Array.from(body.querySelectorAll(".code-snippet__line-index, script, style, noscript"))) {
    junk.remove();
  }

  for (const img of Array.from(body.querySelectorAll("img"))) {
    const src = wechatImageUrl(img.getAttribute("data-src")) ?? wechatImageUrl(img.getAttribute("src"));
    if (!src) {
      img.remove();
      continue;
    }
    img.setAttribute("src", src);
    img.removeAttribute("data-src");
  }

  for (const iframe of Array.from(body.querySelectorAll("iframe"))) {
    const src = wechatImageUrl(iframe.getAttribute("data-src") ?? iframe.getAttribute("src"));
    if (src) paragraphWith(iframe, "Video", src);
    else iframe.remove();
  }

  for (const voice of Array.from(body.querySelectorAll("mpvoice, mp-common-mpaudio"))) {
    const name = (voice.getAttribute("name") ?? voice.getAttribute("data-name") ?? "").trim();
    if (name) paragraphWith(voice, `Audio: ${name}`);
    else voice.remove();
  }

  for (const section of Array.from(body.querySelectorAll("section"))) {
    replaceTag(section, section.querySelector("p, div, section, pre, ul, ol, blockquote, table, h1, h2, h3, h4, h5, h6") ? "div" : "p");
  }

  return body;
}
