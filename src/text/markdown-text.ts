import { getDefaults, Lexer, Tokenizer, type Token } from "marked";
import { decodeHtmlEntities } from "./html-entities";

/**
 * A line that could underline a setext heading (`Title` over `===` or `---`) in any container (quotes
 * and lists strip `>` and indentation first). Without one, marked's setext rule can never match; its
 * regular expression, tried at every paragraph, scans the paragraph to its end and was a fifth of a
 * note write's CPU on long paragraphs. Such text is read by a lexer that skips the rule: same tokens.
 */
const MAYBE_SETEXT_UNDERLINE = /^[ \t>]*(?:=+|-+)[ \t\r]*$/m;
const withoutSetextHeadings = new Tokenizer();
withoutSetextHeadings.lheading = () => undefined;

/** marked's block and inline tokens of the text. */
export function lexMarkdown(markdown: string): Token[] {
  if (MAYBE_SETEXT_UNDERLINE.test(markdown)) return Lexer.lex(markdown);
  return new Lexer({ ...getDefaults(), tokenizer: withoutSetextHeadings }).lex(markdown);
}

/** The text a reader sees in Markdown (entities decoded, no markup, images or HTML), whitespace collapsed. */
export function markdownPlainText(markdown: string): string {
  const parts: string[] = [];
  collectText(lexMarkdown(markdown), parts);
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
