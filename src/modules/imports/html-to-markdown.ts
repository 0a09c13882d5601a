import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { decodeHtmlAttribute } from "../../text/html-entities";
import { ImportError, PASTE_INSTEAD } from "./import-error";
import { addPipeTables } from "./pipe-tables";

/** Elements whose content is never part of an article's text. */
const JUNK_TAGS = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "IFRAME",
  "FRAME",
  "FRAMESET",
  "OBJECT",
  "EMBED",
  "TEMPLATE",
  "FORM",
  "BUTTON",
  "INPUT",
  "SELECT",
  "TEXTAREA",
  "SVG",
  "CANVAS",
  "AUDIO",
  "VIDEO",
  "HEAD",
  "TITLE",
  "META",
  "LINK",
  "BASE",
]);

const LINK_PROTOCOLS = ["http:", "https:", "mailto:"];
const IMAGE_PROTOCOLS = ["http:", "https:"];

/**
 * Parses a page or a fragment with linkedom, always yielding a document with a `<body>`:
 * linkedom is not a spec parser and drops content outside `<body>` or fragments without one.
 */
export function parseHtmlDocument(html: string): Document {
  const source = html.replace(/\u0000/g, "");
  if (/<body[\s>]/i.test(source)) return parseHTML(source).document as unknown as Document;
  // Index arithmetic, not a lazy regex: a page with many unclosed `<head>`s must stay linear.
  const headStart = source.search(/<head[\s>]/i);
  const headEnd = headStart < 0 ? -1 : source.toLowerCase().indexOf("</head>", headStart);
  const hasHead = headStart >= 0 && headEnd >= 0;
  const headInner = hasHead ? source.slice(source.indexOf(">", headStart) + 1, headEnd) : "";
  const rest = (hasHead ? source.slice(0, headStart) + source.slice(headEnd + "</head>".length) : source)
    .replace(/<!doctype[^<>]{0,200}>/gi, "")
    .replace(/<\/?html(?:\s[^<>]{0,2000})?>/gi, "");
  const wrapped = `<!DOCTYPE html><html><head>${headInner}</head><body>${rest}</body></html>`;
  return parseHTML(wrapped).document as unknown as Document;
}

/**
 * An absolute URL with an allowed scheme, or null. Relative URLs are refused: importers resolve
 * them against the page first, so anything still relative here cannot be resolved.
 */
function safeUrl(raw: string | null, protocols: string[]): string | null {
  if (!raw) return null;
  // Entity-escaped ampersands survive in some lazy-image attributes (`&amp;amp;`).
  let value = decodeHtmlAttribute(raw.trim());
  if (value.startsWith("//")) value = `https:${value}`;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!protocols.includes(url.protocol)) return null;
  // Parentheses would end the Markdown link destination early.
  return url.href.replace(/\(/g, "%28").replace(/\)/g, "%29");
}

function escapeLinkText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/([[\]])/g, "\\$1");
}

/** Code text with `<br>` as newlines; WeChat's editor writes one `<code>` per line. */
function codeText(node: Node): string {
  if (node.nodeType === 3) return node.nodeValue ?? "";
  if (node.nodeName === "BR") return "\n";
  const children = Array.from(node.childNodes);
  const codeChildren = children.filter((child) => child.nodeName === "CODE");
  if (node.nodeName === "PRE" && codeChildren.length > 1) {
    return codeChildren.map((child) => codeText(child)).join("\n");
  }
  return children.map((child) => codeText(child)).join("");
}

function codeLanguage(pre: Element): string {
  const code = Array.from(pre.children).find((child) => child.nodeName === "CODE");
  const candidates = [
    pre.getAttribute("data-lang"),
    ...[pre, code].flatMap((el) =>
      (el?.getAttribute("class") ?? "").split(/\s+/).map((c) => /^(?:language|lang)-(.+)$/.exec(c)?.[1]),
    ),
  ];
  const lang = candidates.find((c) => c && /^[A-Za-z0-9_+#.-]{1,24}$/.test(c));
  return lang ? lang.toLowerCase() : "";
}

function createTurndown(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    hr: "---",
    emDelimiter: "_",
    strongDelimiter: "**",
  });

  service.remove((node) => JUNK_TAGS.has(node.nodeName.toUpperCase()));

  service.addRule("safeLink", {
    filter: (node) => node.nodeName === "A",
    replacement: (content, node) => {
      const href = safeUrl((node as Element).getAttribute("href"), LINK_PROTOCOLS);
      if (!href) return content;
      if (!content.trim()) return "";
      return `[${content}](${href})`;
    },
  });

  service.addRule("safeImage", {
    filter: (node) => node.nodeName === "IMG",
    replacement: (_content, node) => {
      const el = node as Element;
      const src =
        safeUrl(el.getAttribute("src"), IMAGE_PROTOCOLS) ?? safeUrl(el.getAttribute("data-src"), IMAGE_PROTOCOLS);
      if (!src) return "";
      const alt = escapeLinkText((el.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim());
      return `![${alt}](${src})`;
    },
  });

  service.addRule("fencedCode", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => {
      // trimEnd, not /\s+$/: that regex is quadratic on a long run of spaces.
      const text = codeText(node).replace(/\u00a0/g, " ").trimEnd().replace(/^\n+/, "");
      if (!text) return "";
      const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
      const fence = "`".repeat(Math.max(3, longestRun + 1));
      return `\n\n${fence}${codeLanguage(node as Element)}\n${text}\n${fence}\n\n`;
    },
  });

  service.addRule("listItem", {
    filter: "li",
    replacement: (content, node) => {
      const parent = node.parentNode as Element | null;
      let prefix = "- ";
      if (parent?.nodeName === "OL") {
        const start = Number.parseInt(parent.getAttribute("start") ?? "1", 10);
        const index = Array.from(parent.children).indexOf(node as Element);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n").replace(/\n(?!$)/g, `\n${" ".repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !body.endsWith("\n") ? "\n" : "");
    },
  });

  return service;
}

// One instance each, configured once: rules are pure, so conversions are deterministic.
const turndown = createTurndown();
let withTables: TurndownService | undefined;

function tableTurndown(): TurndownService {
  const service = createTurndown();
  addPipeTables(service);
  return service;
}

/** No real text needs more; turndown's own trimming regexes are quadratic in whitespace-run length. */
const MAX_WHITESPACE_RUN = 64;

/** Real articles nest a few dozen levels; turndown and Readability recurse, so thousands overflow the stack. */
const MAX_NESTING_DEPTH = 500;

/**
 * Throws a permanent ImportError when the tree is nested deeper than any real page, before a
 * recursive consumer (turndown, Readability) overflows the stack or stalls on it.
 */
export function assertReadableNesting(root: Node): void {
  const pending: [Node, number][] = [[root, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (depth > MAX_NESTING_DEPTH) {
      throw new ImportError(`This page's markup is nested too deeply to be read. ${PASTE_INSTEAD}`, {
        permanent: true,
      });
    }
    for (const child of Array.from(node.childNodes)) if (child.nodeType === 1) pending.push([child, depth + 1]);
  }
}

/** Shortens every whitespace run in the tree's text (iteratively: hostile nesting is deep). */
function boundWhitespaceRuns(root: Node): void {
  const pending: Node[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.nodeType === 3) {
      const value = node.nodeValue ?? "";
      if (value.length > MAX_WHITESPACE_RUN) {
        node.nodeValue = value.replace(/\s{65,}/g, (run) => run.slice(0, MAX_WHITESPACE_RUN));
      }
    } else {
      for (const child of Array.from(node.childNodes)) pending.push(child);
    }
  }
}

/**
 * Article HTML (a string or an element) as clean Markdown: no scripts, unsafe links or junk.
 * `tables`: data tables as pipe tables (documents' tables are data; a web page's are often layout).
 * Throws a permanent ImportError for markup nested too deeply to convert.
 */
export function htmlToMarkdown(html: string | Element, options: { tables?: boolean } = {}): string {
  const root = typeof html === "string" ? parseHtmlDocument(html).body : (html.cloneNode(true) as Element);
  if (!root) return "";
  assertReadableNesting(root);
  boundWhitespaceRuns(root);
  const service = options.tables ? (withTables ??= tableTurndown()) : turndown;
  const markdown = service.turndown(root as unknown as TurndownService.Node);
  const lines = markdown.replace(/\u0000/g, "").split("\n").map((line) => {
    const trimmed = line.trimEnd();
    // Two trailing spaces are Markdown's hard line break (<br>): keep exactly those.
    return trimmed && /\S  $/.test(line) ? `${trimmed}  ` : trimmed;
  });
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}
