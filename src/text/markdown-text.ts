import { Lexer, type Token } from "marked";
import { decodeHtmlEntities } from "./html-entities";

/** The text a reader sees in Markdown (entities decoded, no markup, images or HTML), whitespace collapsed. */
export function markdownPlainText(markdown: string): string {
  const parts: string[] = [];
  collectText(Lexer.lex(markdown), parts);
  return parts.join(" ").replace(/\s+/g, " ").trim();
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
