// A note's Markdown as DOM nodes built from marked's tokens: every piece of text goes in through
// textContent, so nothing in a note can become markup, a script or a request. Raw HTML shows as text.
// `[[Title]]` and `[[Title|shown text]]` become links (a.wikilink, data-wikilink = the title) that the
// page follows to the note of that title, or the concept (client/app/wikilinks.ts).
import { Marked, type Token, type Tokens, type TokenizerExtension } from "marked";

interface WikilinkToken {
  type: "wikilink";
  raw: string;
  target: string;
  label: string;
}

const WIKILINK = /^\[\[([^[\]\n|]+)(?:\|([^[\]\n]+))?\]\]/;

const wikilink: TokenizerExtension = {
  name: "wikilink",
  level: "inline",
  start: (source) => source.indexOf("[["),
  tokenizer(source) {
    const match = WIKILINK.exec(source);
    if (!match || !match[1]!.trim()) return undefined;
    return { type: "wikilink", raw: match[0], target: match[1]!.trim(), label: (match[2] ?? match[1]!).trim() } satisfies WikilinkToken;
  },
};

const markdown = new Marked({ gfm: true, extensions: [wikilink] });

export function renderMarkdown(source: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  appendBlocks(fragment, markdown.lexer(source));
  return fragment;
}

/** A passage (an excerpt of a note) as one line of text: its Markdown rendered inline, its blocks run together. */
export function renderPassage(source: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  appendFlat(fragment, markdown.lexer(source));
  return fragment;
}

function appendFlat(fragment: DocumentFragment, tokens: Token[]): void {
  const separate = () => fragment.childNodes.length && fragment.append(text(" "));
  for (const token of tokens) {
    switch (token.type) {
      case "space":
      case "hr":
      case "def":
        break;
      case "list":
        for (const item of (token as Tokens.List).items) appendFlat(fragment, item.tokens);
        break;
      case "blockquote":
        appendFlat(fragment, (token as Tokens.Blockquote).tokens);
        break;
      case "code":
        separate();
        fragment.append(text((token as Tokens.Code).text));
        break;
      default: {
        separate();
        const inner = (token as { tokens?: Token[] }).tokens;
        if (inner) for (const child of inner) fragment.appendChild(inline(child));
        else fragment.append(text(decodeEntities(token.raw.trim())));
      }
    }
  }
}

function appendBlocks(parent: Node, tokens: Token[]): void {
  for (const token of tokens) parent.appendChild(block(token));
}

function block(token: Token): Node {
  switch (token.type) {
    case "heading": {
      const { depth, tokens } = token as Tokens.Heading;
      return withInline(`h${Math.min(6, depth + 2)}`, tokens);
    }
    case "paragraph":
      return withInline("p", (token as Tokens.Paragraph).tokens);
    case "code":
      return element("pre", element("code", text((token as Tokens.Code).text)));
    case "blockquote": {
      const quote = document.createElement("blockquote");
      appendBlocks(quote, (token as Tokens.Blockquote).tokens);
      return quote;
    }
    case "list": {
      const list = token as Tokens.List;
      const node = document.createElement(list.ordered ? "ol" : "ul");
      for (const item of list.items) {
        const li = document.createElement("li");
        if (item.task) li.append(text(item.checked ? "☑ " : "☐ "));
        appendBlocks(li, item.tokens);
        node.appendChild(li);
      }
      return node;
    }
    case "table": {
      const table = token as Tokens.Table;
      const node = document.createElement("table");
      const head = node.createTHead().insertRow();
      for (const cell of table.header) head.appendChild(withInline("th", cell.tokens));
      const body = node.createTBody();
      for (const row of table.rows) {
        const tr = body.insertRow();
        for (const cell of row) tr.appendChild(withInline("td", cell.tokens));
      }
      return node;
    }
    case "hr":
      return document.createElement("hr");
    case "space":
    case "def":
      return document.createDocumentFragment();
    case "text":
      return withInline("p", (token as Tokens.Text).tokens ?? [token]);
    default:
      return element("p", text(decodeEntities(token.raw)));
  }
}

function withInline(tag: string, tokens: Token[]): HTMLElement {
  const node = document.createElement(tag);
  for (const token of tokens) node.appendChild(inline(token));
  return node;
}

function inline(token: Token): Node {
  switch (token.type) {
    case "strong":
      return withInline("strong", (token as Tokens.Strong).tokens);
    case "em":
      return withInline("em", (token as Tokens.Em).tokens);
    case "del":
      return withInline("del", (token as Tokens.Del).tokens);
    case "codespan":
      return element("code", text(decodeEntities((token as Tokens.Codespan).text)));
    case "br":
      return document.createElement("br");
    case "link": {
      const link = token as Tokens.Link;
      // A file stored here (a document's original) is fetched by the note view with the token, as a download.
      if (/^\/api\/files\/[1-9]\d*$/.test(link.href)) {
        const anchor = withInline("a", link.tokens) as HTMLAnchorElement;
        anchor.href = link.href;
        anchor.dataset.file = link.href;
        return anchor;
      }
      if (!/^(https?:|mailto:)/i.test(link.href)) return withInline("span", link.tokens);
      const anchor = withInline("a", link.tokens) as HTMLAnchorElement;
      anchor.href = link.href;
      anchor.target = "_blank";
      anchor.rel = "noopener noreferrer";
      return anchor;
    }
    case "image": {
      const image = token as Tokens.Image;
      // A picture stored here is loaded by the note view (with the token, as a blob URL); any other
      // is never loaded: an image named by a note could be anywhere on the internet.
      if (/^\/api\/files\/[1-9]\d*$/.test(image.href)) {
        const img = document.createElement("img");
        img.alt = decodeEntities(image.text);
        img.dataset.file = image.href;
        img.className = "stored-image";
        return img;
      }
      return text(`[image: ${image.text || image.href}]`);
    }
    case "text": {
      const inner = (token as Tokens.Text).tokens;
      if (inner?.length) {
        const fragment = document.createDocumentFragment();
        for (const child of inner) fragment.appendChild(inline(child));
        return fragment;
      }
      return text(decodeEntities((token as Tokens.Text).text));
    }
    case "escape":
      return text((token as Tokens.Escape).text);
    case "wikilink": {
      const link = token as unknown as WikilinkToken;
      const anchor = document.createElement("a");
      anchor.className = "wikilink";
      anchor.dataset.wikilink = link.target;
      // Where it leads is decided on click (a note of that title, else the concept); the hash keeps it a real link.
      anchor.href = `#wiki=${encodeURIComponent(link.target)}`;
      anchor.textContent = link.label;
      return anchor;
    }
    default:
      return text(decodeEntities(token.raw));
  }
}

function element(tag: string, child: Node): HTMLElement {
  const node = document.createElement(tag);
  node.appendChild(child);
  return node;
}

function text(value: string): Text {
  return document.createTextNode(value);
}

/** `&amp;` and friends as characters; an inert parsed document runs and loads nothing. */
function decodeEntities(value: string): string {
  if (!value.includes("&")) return value;
  return new DOMParser().parseFromString(`<!doctype html><body>${value.replaceAll("<", "&lt;")}`, "text/html").body.textContent ?? value;
}
