import { Lexer, type Token } from "marked";
import { decodeHtmlEntities } from "../../text/html-entities";

const EXCERPT_LENGTH = 200;
// Enough Markdown to yield 200 characters of text without parsing a whole 1 MiB note.
const SOURCE_PREFIX = 4 * 1024;

/** The first 200 characters of a note's Markdown as plain text (entities decoded), whitespace collapsed. */
export function plainTextExcerpt(markdown: string): string {
  const parts: string[] = [];
  collectText(Lexer.lex(markdown.slice(0, SOURCE_PREFIX)), parts);
  const text = parts.join(" ").replace(/\s+/g, " ").trim();
  return Array.from(text).slice(0, EXCERPT_LENGTH).join("");
}

function collectText(tokens: Token[], parts: string[]): void {
  for (const token of tokens) {
    if (token.type === "html" || token.type === "image" || token.type === "space" || token.type === "hr") continue;
    if ("tokens" in token && token.tokens?.length) collectText(token.tokens, parts);
    else if (token.type === "list") collectText(token.items, parts);
    else if (token.type === "table") {
      for (const cell of [...token.header, ...token.rows.flat()]) collectText(cell.tokens, parts);
    } else if (token.type === "code" || token.type === "codespan") parts.push(token.text);
    // Markdown text shows `&eacute;` as é; in code it stays as written.
    else if ("text" in token && typeof token.text === "string") parts.push(decodeHtmlEntities(token.text));
  }
}
