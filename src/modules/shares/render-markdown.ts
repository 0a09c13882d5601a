import { Marked } from "marked";
import type sanitizeHtml from "sanitize-html";
import { shareFileUrl } from "./shared-note";

const markdown = new Marked({ gfm: true, breaks: false });

/**
 * What survives on a share page: text structure, links (http, https, mailto) and images; no
 * script, event handler, style, form, frame, object or embed. Anything else is dropped with its
 * content when it is code-like (script, style, …), else unwrapped to its text.
 */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code", "kbd", "samp", "sub", "sup",
    "em", "strong", "b", "i", "u", "s", "del", "ins", "mark", "small", "abbr", "q", "cite",
    "ul", "ol", "li", "dl", "dt", "dd", "a", "img", "figure", "figcaption", "details", "summary",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "span",
  ],
  allowedAttributes: {
    a: ["href", "title"],
    img: ["src", "alt", "title", "width", "height"],
    th: ["align", "colspan", "rowspan"],
    td: ["align", "colspan", "rowspan"],
    ol: ["start"],
    code: ["class"],
    span: ["class"],
  },
  allowedClasses: { code: [/^language-[\w+-]{1,40}$/], span: ["task"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
};

// Loaded by the first share page (sanitize-html and PostCSS under it hold about 5 MiB that a service nobody shares from need not).
let sanitizer: typeof sanitizeHtml | undefined;

/** The note's Markdown as safe HTML for its share page; links to stored files point at the share's copies. */
export function renderSharedMarkdown(content: string, token: string): string {
  const html = markdown.parse(content, { async: false });
  sanitizer ??= require("sanitize-html") as typeof sanitizeHtml;
  return sanitizer(html, {
    ...SANITIZE,
    transformTags: {
      // Other sites see neither the link nor who followed it.
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...(attribs.href && { href: shareFileUrl(token, attribs.href), rel: "nofollow noopener noreferrer" }) } }),
      img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...(attribs.src && { src: shareFileUrl(token, attribs.src) }), loading: "lazy" } }),
      // GFM task boxes are form controls: shown as the marks they stand for.
      input: (_tagName, attribs) => ({ tagName: "span", attribs: { class: "task" }, text: attribs.type === "checkbox" ? ("checked" in attribs ? "☑ " : "☐ ") : "" }),
    },
    allowedAttributes: { ...SANITIZE.allowedAttributes, a: ["href", "title", "rel"], img: ["src", "alt", "title", "width", "height", "loading"] },
  });
}

/** The `.md` variant: the note's own text, its stored-file links pointed at the share's copies. */
export function sharedMarkdownText(content: string, token: string): string {
  return content.replace(/\/api\/files\/([1-9]\d{0,15})(?!\d)/g, (link) => shareFileUrl(token, link));
}
